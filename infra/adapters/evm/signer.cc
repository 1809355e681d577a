#include "infra/adapters/evm/signer.h"

#include <openssl/crypto.h>
#include <openssl/rand.h>
#include <secp256k1.h>
#include <secp256k1_recovery.h>

#include <algorithm>

namespace payrail::infra::evm {
namespace {

model::Error signer_error(const std::string& why) {
  return model::Error::make(model::ErrorCode::internal_error, "hot-wallet signer: " + why);
}

// The address of a public key: the last 20 bytes of keccak256 of its 64-byte uncompressed
// encoding without the 0x04 prefix.
Address address_of(const secp256k1_context* context, const secp256k1_pubkey& public_key) {
  std::array<unsigned char, 65> serialized{};
  std::size_t length = serialized.size();
  secp256k1_ec_pubkey_serialize(context, serialized.data(), &length, &public_key,
                                SECP256K1_EC_UNCOMPRESSED);
  const Hash hash = keccak(std::string_view(reinterpret_cast<const char*>(serialized.data()) + 1,
                                            serialized.size() - 1));
  Address address;
  std::copy(hash.end() - 20, hash.end(), address.bytes.begin());
  return address;
}

// A context for verification and recovery only (no secret ever enters it).
const secp256k1_context* public_context() {
  static secp256k1_context* context = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  return context;
}

}  // namespace

model::Result<std::unique_ptr<LocalKeySigner>> LocalKeySigner::from_bytes(
    std::string_view private_key) {
  if (private_key.size() != 32) return signer_error("the private key must be 32 bytes");
  std::unique_ptr<LocalKeySigner> signer(new LocalKeySigner());
  std::copy(private_key.begin(), private_key.end(), signer->key_.begin());
  signer->context_ = secp256k1_context_create(SECP256K1_CONTEXT_NONE);
  if (signer->context_ == nullptr) return signer_error("cannot create a secp256k1 context");
  // Blinding against side channels: the context's secret computations use a random offset.
  std::array<unsigned char, 32> seed{};
  const bool seeded = RAND_bytes(seed.data(), static_cast<int>(seed.size())) == 1 &&
                      secp256k1_context_randomize(signer->context_, seed.data()) == 1;
  OPENSSL_cleanse(seed.data(), seed.size());
  if (!seeded) return signer_error("cannot randomize the secp256k1 context");
  if (secp256k1_ec_seckey_verify(signer->context_, signer->key_.data()) != 1) {
    return signer_error("the private key is not a valid secp256k1 key (zero or not below n)");
  }
  secp256k1_pubkey public_key;
  if (secp256k1_ec_pubkey_create(signer->context_, &public_key, signer->key_.data()) != 1) {
    return signer_error("cannot derive the public key");
  }
  signer->address_ = address_of(signer->context_, public_key);
  return signer;
}

LocalKeySigner::~LocalKeySigner() {
  OPENSSL_cleanse(key_.data(), key_.size());
  if (context_ != nullptr) secp256k1_context_destroy(context_);
}

model::Result<Signature> LocalKeySigner::sign(const Hash& digest) const {
  secp256k1_ecdsa_recoverable_signature recoverable;
  // A null nonce function is libsecp256k1's RFC 6979 default; the result is always low-s.
  if (secp256k1_ecdsa_sign_recoverable(context_, &recoverable, digest.data(), key_.data(), nullptr,
                                       nullptr) != 1) {
    return signer_error("signing failed");
  }
  std::array<unsigned char, 64> compact{};
  int recovery_id = 0;
  secp256k1_ecdsa_recoverable_signature_serialize_compact(context_, compact.data(), &recovery_id,
                                                          &recoverable);
  Signature signature;
  std::copy(compact.begin(), compact.begin() + 32, signature.r.begin());
  std::copy(compact.begin() + 32, compact.end(), signature.s.begin());
  signature.y_parity = static_cast<std::uint8_t>(recovery_id);
  return signature;
}

std::optional<Address> recover_signer(const Hash& digest, const Signature& signature) {
  if (signature.y_parity > 1) return std::nullopt;
  std::array<unsigned char, 64> compact{};
  std::copy(signature.r.begin(), signature.r.end(), compact.begin());
  std::copy(signature.s.begin(), signature.s.end(), compact.begin() + 32);
  const auto* context = public_context();
  secp256k1_ecdsa_recoverable_signature recoverable;
  if (secp256k1_ecdsa_recoverable_signature_parse_compact(context, &recoverable, compact.data(),
                                                          signature.y_parity) != 1) {
    return std::nullopt;
  }
  // Ethereum accepts only low-s signatures (EIP-2): refuse the malleable twin.
  secp256k1_ecdsa_signature plain;
  secp256k1_ecdsa_recoverable_signature_convert(context, &plain, &recoverable);
  if (secp256k1_ecdsa_signature_normalize(context, nullptr, &plain) == 1) return std::nullopt;
  secp256k1_pubkey public_key;
  if (secp256k1_ecdsa_recover(context, &public_key, &recoverable, digest.data()) != 1) {
    return std::nullopt;
  }
  return address_of(context, public_key);
}

}  // namespace payrail::infra::evm
