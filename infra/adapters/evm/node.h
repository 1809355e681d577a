// Typed calls to an EVM node over JSON-RPC: what the adapter reads and sends. Each answer is
// checked field by field; one that is not what the method promises is a malformed_response
// (retryable: another endpoint, or the same later, may answer properly).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "infra/adapters/evm/bytes.h"
#include "infra/adapters/evm/json_rpc.h"
#include "infra/adapters/evm/uint256.h"

namespace payrail::infra::evm {

// Block selectors: a tag, or a number as its quantity text (block_tag(n)).
inline constexpr std::string_view kLatest = "latest";
inline constexpr std::string_view kPending = "pending";
std::string block_tag(std::uint64_t number);

struct FeeHistory {
  std::uint64_t oldest_block = 0;
  // One per block of the range, then the base fee of the block after the newest.
  std::vector<U256> base_fee_per_gas;
  // Per block, the priority fee at each requested percentile.
  std::vector<std::vector<U256>> reward;
};

struct Log {
  Address address;
  std::vector<Hash> topics;
  Bytes data;
  std::uint64_t log_index = 0;
  bool removed = false;  // dropped by a reorg (a log subscription's view; receipts hold none)
};

struct Receipt {
  Hash transaction_hash{};
  bool succeeded = false;  // status 1; 0 is a mined transaction that reverted
  std::uint64_t block_number = 0;
  Hash block_hash{};
  std::uint64_t gas_used = 0;
  std::optional<U256> effective_gas_price;  // what one unit of gas cost (absent on old nodes)
  std::optional<Address> contract_address;  // a contract creation's new contract
  std::vector<Log> logs;
};

struct TransactionInfo {
  Hash hash{};
  std::uint64_t nonce = 0;
  Address from;
  std::optional<Address> to;
  U256 value;
  Bytes input;
  std::optional<std::uint64_t> block_number;  // none while pending
  std::optional<Hash> block_hash;
};

struct Block {
  std::uint64_t number = 0;
  Hash hash{};
  Hash parent_hash{};
  std::uint64_t timestamp = 0;
  std::optional<U256> base_fee_per_gas;  // none before London
};

struct CallRequest {
  std::optional<Address> from;
  std::optional<Address> to;  // none: a contract creation (estimate_gas)
  U256 value;
  Bytes data;
};

class Node {
 public:
  explicit Node(std::unique_ptr<JsonRpcClient> client) : client_(std::move(client)) {}

  RpcResult<std::uint64_t> chain_id();
  RpcResult<std::uint64_t> block_number();
  // eth_getTransactionCount at kLatest (mined) or kPending (mined and in the node's pool).
  RpcResult<std::uint64_t> transaction_count(const Address& account, std::string_view block);
  RpcResult<FeeHistory> fee_history(std::uint64_t block_count, std::string_view newest_block,
                                    std::span<const double> reward_percentiles);
  RpcResult<U256> max_priority_fee_per_gas();
  RpcResult<std::uint64_t> estimate_gas(const CallRequest& request);
  // The node's hash of the transaction; the caller compares it with its own.
  RpcResult<Hash> send_raw_transaction(std::string_view raw);
  // nullopt while the transaction is not mined (pending, unknown, or undone by a reorg).
  RpcResult<std::optional<Receipt>> transaction_receipt(const Hash& hash);
  RpcResult<std::optional<TransactionInfo>> transaction_by_hash(const Hash& hash);
  RpcResult<U256> balance(const Address& account, std::string_view block);
  RpcResult<Bytes> call(const CallRequest& request, std::string_view block);
  // An ERC-20 balanceOf(holder) read with eth_call.
  RpcResult<U256> token_balance(const Address& token, const Address& holder,
                                std::string_view block);
  // The block's header fields (without its transactions); nullopt beyond the chain's head.
  RpcResult<std::optional<Block>> block(std::string_view block);

  JsonRpcClient& client() { return *client_; }

 private:
  std::unique_ptr<JsonRpcClient> client_;
};

}  // namespace payrail::infra::evm
