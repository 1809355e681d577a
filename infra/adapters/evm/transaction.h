// EIP-1559 (type 2) transactions: the fields, the digest a signer signs, the signed raw bytes a
// node accepts, and the hash that names the transaction on chain.
//
//   signing payload = 0x02 || rlp([chain_id, nonce, max_priority_fee_per_gas, max_fee_per_gas,
//                                  gas_limit, to, value, data, access_list])
//   raw             = 0x02 || rlp([... the same nine ..., y_parity, r, s])
//   hash            = keccak256(raw)
//
// The access list is always empty. The raw bytes are what the payout commits before its first
// broadcast: any retry re-sends them, never a new signature.
#pragma once

#include <cstdint>
#include <optional>

#include "infra/adapters/evm/bytes.h"
#include "infra/adapters/evm/signer.h"
#include "infra/adapters/evm/uint256.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::evm {

// What a sender offers per unit of gas: at most max_fee_per_gas in all, of which at most
// max_priority_fee_per_gas goes to the block's producer (the rest of the base fee is burnt).
struct Fees {
  U256 max_priority_fee_per_gas;
  U256 max_fee_per_gas;
  friend bool operator==(const Fees&, const Fees&) = default;
};

struct Transaction {
  std::uint64_t chain_id = 0;
  std::uint64_t nonce = 0;
  Fees fees;
  std::uint64_t gas_limit = 0;
  std::optional<Address> to;  // none: a contract creation (data is the creation code)
  U256 value;                 // wei
  Bytes data;
  friend bool operator==(const Transaction&, const Transaction&) = default;
};

// The gas a plain value transfer uses, exactly (no call data, no code at the recipient).
inline constexpr std::uint64_t kNativeTransferGas = 21000;

// A native (ETH, POL, BNB...) transfer of `value` wei to `to`.
Transaction native_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                            const Address& to, const U256& value);
// An ERC-20 transfer(recipient, amount) call on `token`; the gas limit comes from an estimate.
Transaction token_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                           std::uint64_t gas_limit, const Address& token, const Address& recipient,
                           const U256& amount);
// A transfer of 0 from the sender to itself: it moves nothing and consumes `nonce`, so a
// transaction that can never be mined leaves no gap behind it.
Transaction self_transfer(std::uint64_t chain_id, std::uint64_t nonce, const Fees& fees,
                          const Address& sender);

Bytes signing_payload(const Transaction& transaction);
Hash signing_hash(const Transaction& transaction);
Bytes encode_signed(const Transaction& transaction, const Signature& signature);

struct SignedTransaction {
  Transaction transaction;
  Signature signature;
  Address sender;
  Bytes raw;
  Hash hash;
};

// Signs with `signer` and checks that the signature recovers to the signer's address (a faulty
// or misconfigured remote signer is caught here, before anything is committed or sent).
model::Result<SignedTransaction> sign(const Transaction& transaction, const Signer& signer);

// Reads signed raw bytes back: strict RLP, exactly twelve fields, canonical integers, 64-bit
// chain id, nonce and gas, an empty access list, a valid low-s signature; recovers the sender.
model::Result<SignedTransaction> decode_signed(std::string_view raw);

}  // namespace payrail::infra::evm
