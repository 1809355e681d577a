// A payout's transaction as the chain adapter signs it and the store keeps it: the port's types
// that both sides need (docs/architecture.md "Layers": the store never includes an adapter).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::model {

// A transfer moves the payout's funds; a nonce filler is a zero-value transfer of the sender to
// itself that consumes the nonce of a transfer that can never be mined (docs/evm.md).
enum class ChainTransactionKind { transfer, nonce_filler };

inline std::string_view chain_transaction_kind_name(ChainTransactionKind kind) {
  return kind == ChainTransactionKind::transfer ? "transfer" : "nonce_filler";
}

// A signed transaction. With a nonce (EVM), the raw bytes are committed before the first send and
// every send repeats them; without one (the test-mode simulator) only the hash means anything.
struct SignedTransfer {
  std::string network;
  std::string sender;                  // lowercase 0x address; empty without a nonce
  std::optional<std::uint64_t> nonce;  // allocated by the store
  ChainTransactionKind kind = ChainTransactionKind::transfer;
  std::string raw;   // 0x-prefixed lowercase hex of the signed bytes; empty without a nonce
  std::string hash;  // the transaction's hash as the chain names it
  std::string max_fee_per_gas = "0";           // wei, decimal text
  std::string max_priority_fee_per_gas = "0";  // wei, decimal text
  // The node's head when a node first took it (or refused it for a fee below the base fee).
  std::optional<std::uint64_t> sent_block;
};

}  // namespace payrail::model
