// The one key that seals data at rest: webhook signing secrets, bank account identifiers,
// beneficial owners' names and dates of birth. It comes from configuration
// (PAYRAIL_WEBHOOK_ENCRYPTION_KEY: 64 hex characters, named after its first use) and never
// reaches the database or a log. AES-256-GCM with a fresh nonce per value.
//
// Rotation (docs/operations.md): during a rotation the new key is current and the old one is
// "previous" (PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS): values are sealed with the current key
// and opened with either, until `payrail data-key-reseal` has sealed every stored value
// (infra/plumbing/crypto/sealed_columns.h) with the current key.
#pragma once

#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::infra::crypto {

class DataKey {
 public:
  // Fails with a message naming the setting when a text is not 64 hex characters. An empty
  // `previous_key_hex` means no rotation is in progress.
  static model::Result<DataKey> from_hex(std::string_view key_hex,
                                         std::string_view previous_key_hex = {});

  // nonce(12) || ciphertext || tag(16)
  model::Result<std::string> seal(std::string_view plaintext) const;
  // With the current key, else the previous one. Fails (generic message) on a wrong key or any
  // tampering.
  model::Result<std::string> open(std::string_view sealed) const;

  const std::string& bytes() const { return key_; }                // the current key
  const std::string& previous_bytes() const { return previous_; }  // empty when none

 private:
  DataKey(std::string key, std::string previous)
      : key_(std::move(key)), previous_(std::move(previous)) {}
  std::string key_;
  std::string previous_;
};

}  // namespace payrail::infra::crypto
