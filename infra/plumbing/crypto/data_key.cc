#include "infra/plumbing/crypto/data_key.h"

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::crypto {

model::Result<DataKey> DataKey::from_hex(std::string_view key_hex,
                                         std::string_view previous_key_hex) {
  auto key = hex_decode(key_hex);
  if (!key || key->size() != kAesKeyBytes) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "PAYRAIL_WEBHOOK_ENCRYPTION_KEY must be 64 hex characters.");
  }
  std::string previous;
  if (!previous_key_hex.empty()) {
    auto decoded = hex_decode(previous_key_hex);
    if (!decoded || decoded->size() != kAesKeyBytes) {
      return model::Error::make(
          model::ErrorCode::internal_error,
          "PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS must be 64 hex characters.");
    }
    previous = std::move(*decoded);
  }
  return DataKey(std::move(*key), std::move(previous));
}

model::Result<std::string> DataKey::seal(std::string_view plaintext) const {
  return aes_gcm_encrypt(key_, plaintext);
}

model::Result<std::string> DataKey::open(std::string_view sealed) const {
  auto opened = aes_gcm_decrypt(key_, sealed);
  if (opened.ok() || previous_.empty()) return opened;
  return aes_gcm_decrypt(previous_, sealed);
}

}  // namespace payrail::infra::crypto
