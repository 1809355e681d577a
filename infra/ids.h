#pragma once

#include <string>
#include <string_view>

#include "infra/crypto/crypto.h"

namespace payrail::infra {

// Resource ids: the contract's prefix (org_, po_, key_, whe_, evt_ ...) and 24 random base62
// characters (~143 bits) from the CSPRNG, so ids are unguessable and never collide in practice.
inline std::string new_id(std::string_view prefix) {
  return std::string(prefix) + crypto::random_base62(24);
}

}  // namespace payrail::infra
