// Who signs a transaction. The interface lets a remote signer (a KMS, an HSM, a signing service)
// replace the embedded one later; LocalKeySigner holds a hot-wallet key in memory.
//
// Key custody. The private key never appears in a log, an error message, an exception's text or
// any output: no function here returns or prints it, error texts never include it, and its
// memory is wiped (OPENSSL_cleanse) when the signer is destroyed. At rest the key is sealed with
// the data key (infra/plumbing/crypto/data_key.h) by the store that keeps it; the signer is built
// from the 32 raw bytes that DataKey::open() returns, and the caller wipes those too.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string_view>

#include "infra/adapters/evm/bytes.h"
#include "schemas/model/common/result.h"

struct secp256k1_context_struct;

namespace payrail::infra::evm {

// A recoverable secp256k1 signature: r, s (low-s: s <= n/2) and the parity of R's y coordinate,
// which is what a type-2 transaction carries as its `v` (0 or 1).
struct Signature {
  std::array<std::uint8_t, 32> r{};
  std::array<std::uint8_t, 32> s{};
  std::uint8_t y_parity = 0;
  friend bool operator==(const Signature&, const Signature&) = default;
};

class Signer {
 public:
  virtual ~Signer() = default;
  // The account the signatures are of: the hot wallet's address.
  virtual Address address() const = 0;
  // Signs a 32-byte digest (already hashed: the caller hashes what it signs). Errors as values:
  // a remote signer may be unreachable.
  virtual model::Result<Signature> sign(const Hash& digest) const = 0;
};

class LocalKeySigner final : public Signer {
 public:
  // From the key's 32 raw bytes (big-endian scalar). Refuses a key of another length, zero, or
  // not below the curve order; the message never includes the key.
  static model::Result<std::unique_ptr<LocalKeySigner>> from_bytes(std::string_view private_key);
  ~LocalKeySigner() override;
  LocalKeySigner(const LocalKeySigner&) = delete;
  LocalKeySigner& operator=(const LocalKeySigner&) = delete;

  Address address() const override { return address_; }
  // RFC 6979 deterministic nonces (libsecp256k1's default), low-s, recoverable. Thread-safe.
  model::Result<Signature> sign(const Hash& digest) const override;

 private:
  LocalKeySigner() = default;
  std::array<std::uint8_t, 32> key_{};
  Address address_;
  secp256k1_context_struct* context_ = nullptr;
};

// The address whose key made `signature` over `digest` (ecrecover), or nullopt when the
// signature is not valid for any key.
std::optional<Address> recover_signer(const Hash& digest, const Signature& signature);

}  // namespace payrail::infra::evm
