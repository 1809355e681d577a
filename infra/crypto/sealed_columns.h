// Every database column holding values sealed with the data key (crypto::DataKey), so that
// `payrail data-key-reseal` can seal all of them with the current key after a rotation. A
// resource that stores a sealed value adds its column here.
#pragma once

#include <array>

namespace payrail::infra::crypto {

struct SealedColumn {
  const char* table;
  const char* key_column;     // a unique text key (the resource id), to walk the table in order
  const char* sealed_column;  // bytea: nonce(12) || ciphertext || tag(16); may be NULL
};

inline constexpr std::array kSealedColumns{
    SealedColumn{"webhook_endpoints", "id", "secret_ciphertext"},
};

}  // namespace payrail::infra::crypto
