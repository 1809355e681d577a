#include "infra/store/webhooks/secrets.h"

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"

namespace payrail::infra::webhooks {

std::string new_endpoint_secret() {
  return std::string(kSecretPrefix) + crypto::random_base62(kSecretRandomLength);
}

model::Result<std::string> encryption_key_from_hex(std::string_view key_hex) {
  auto key = crypto::DataKey::from_hex(key_hex);
  if (!key.ok()) return key.error();
  return key->bytes();
}

model::Result<std::string> seal_secret(std::string_view key, std::string_view secret) {
  return crypto::aes_gcm_encrypt(key, secret);
}

model::Result<std::string> open_secret(std::string_view key, std::string_view sealed) {
  return crypto::aes_gcm_decrypt(key, sealed);
}

}  // namespace payrail::infra::webhooks
