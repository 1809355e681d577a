// Endpoint signing secrets: "whsec_" + base62 from the CSPRNG, shown once, stored only sealed
// with AES-256-GCM under the key from PAYRAIL_WEBHOOK_ENCRYPTION_KEY. Never logged.
#pragma once

#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::infra::webhooks {

constexpr std::string_view kSecretPrefix = "whsec_";
constexpr std::size_t kSecretRandomLength = 40;  // base62 characters: ~238 bits (>= 192 required)

std::string new_endpoint_secret();

// The 32-byte key from its 64-hex-character configuration value.
model::Result<std::string> encryption_key_from_hex(std::string_view key_hex);

model::Result<std::string> seal_secret(std::string_view key, std::string_view secret);
model::Result<std::string> open_secret(std::string_view key, std::string_view sealed);

}  // namespace payrail::infra::webhooks
