// Every database column holding values sealed with the data key (crypto::DataKey), so that
// `payrail data-key-reseal` can seal all of them with the current key after a rotation. A
// resource that stores a sealed value adds its column here.
#pragma once

#include <array>

namespace payrail::infra::crypto {

struct SealedColumn {
  const char* table;
  // An SQL expression giving each row a unique text key, to walk the table in order (the id, or
  // the primary key's columns joined).
  const char* key_sql;
  const char* sealed_column;  // bytea: nonce(12) || ciphertext || tag(16); may be NULL
};

inline constexpr const char* kBeneficialOwnerKey =
    "submission_id || '/' || lpad(position::text, 2, '0')";

inline constexpr std::array kSealedColumns{
    SealedColumn{"webhook_endpoints", "id", "secret_ciphertext"},
    SealedColumn{"kyb_beneficial_owners", kBeneficialOwnerKey, "name_sealed"},
    SealedColumn{"kyb_beneficial_owners", kBeneficialOwnerKey, "dob_sealed"},
    SealedColumn{"fiat_payouts", "id", "account_sealed"},
    SealedColumn{"evm_wallets", "network", "key_sealed"},
};

}  // namespace payrail::infra::crypto
