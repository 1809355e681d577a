// The one key that seals data at rest: webhook signing secrets, bank account identifiers,
// beneficial owners' names and dates of birth. It comes from configuration
// (PAYRAIL_WEBHOOK_ENCRYPTION_KEY: 64 hex characters, named after its first use) and never
// reaches the database or a log. AES-256-GCM with a fresh nonce per value.
#pragma once

#include <string>
#include <string_view>

#include "schemas/model/result.h"

namespace payrail::infra::crypto {

class DataKey {
 public:
  // Fails with a message naming the setting when the text is not 64 hex characters.
  static model::Result<DataKey> from_hex(std::string_view key_hex);

  // nonce(12) || ciphertext || tag(16)
  model::Result<std::string> seal(std::string_view plaintext) const;
  // Fails (generic message) on a wrong key or any tampering.
  model::Result<std::string> open(std::string_view sealed) const;

  const std::string& bytes() const { return key_; }

 private:
  explicit DataKey(std::string key) : key_(std::move(key)) {}
  std::string key_;
};

}  // namespace payrail::infra::crypto
