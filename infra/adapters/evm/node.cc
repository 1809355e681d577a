#include "infra/adapters/evm/node.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "infra/adapters/evm/abi.h"
#include "schemas/model/common/json.h"

namespace payrail::infra::evm {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

RpcError malformed(std::string_view method, std::string_view what) {
  return RpcError{RpcFailure::malformed_response,
                  0,
                  std::string(method) + " answered " + std::string(what),
                  {}};
}

void write(Writer& writer, std::string_view text) {
  writer.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
}

// A params array of strings: ["0x...", "latest"].
std::string string_params(std::initializer_list<std::string_view> values) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartArray();
  for (const auto value : values) write(writer, value);
  writer.EndArray();
  return buffer.GetString();
}

void write_call_request(Writer& writer, const CallRequest& request) {
  writer.StartObject();
  if (request.from) {
    writer.Key("from");
    write(writer, request.from->lowercase());
  }
  if (request.to) {
    writer.Key("to");
    write(writer, request.to->lowercase());
  }
  writer.Key("value");
  write(writer, request.value.to_quantity());
  // "data", which every node implementation reads (newer ones also take "input").
  writer.Key("data");
  write(writer, to_hex(request.data));
  writer.EndObject();
}

std::string call_params(const CallRequest& request, std::optional<std::string_view> block) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartArray();
  write_call_request(writer, request);
  if (block) write(writer, *block);
  writer.EndArray();
  return buffer.GetString();
}

// Readers of one member: nullopt when it is missing or not of its shape.
std::optional<std::string_view> text(const rapidjson::Value& object, const char* name) {
  return model::json::string_member(object, name);
}
std::optional<U256> quantity(const rapidjson::Value& value) {
  if (!value.IsString()) return std::nullopt;
  return U256::from_quantity({value.GetString(), value.GetStringLength()});
}
std::optional<U256> quantity(const rapidjson::Value& object, const char* name) {
  const auto* value = model::json::member(object, name);
  return value ? quantity(*value) : std::nullopt;
}
std::optional<std::uint64_t> small_quantity(const rapidjson::Value& object, const char* name) {
  const auto value = quantity(object, name);
  return value ? value->to_uint64() : std::nullopt;
}
std::optional<Hash> hash(const rapidjson::Value& object, const char* name) {
  const auto value = text(object, name);
  return value ? hash_from_hex(*value) : std::nullopt;
}
std::optional<Address> address(const rapidjson::Value& object, const char* name) {
  const auto value = text(object, name);
  return value ? parse_address(*value) : std::nullopt;
}
std::optional<Bytes> bytes(const rapidjson::Value& object, const char* name) {
  const auto value = text(object, name);
  return value ? from_hex(*value) : std::nullopt;
}
bool is_null_or_missing(const rapidjson::Value& object, const char* name) {
  const auto* value = model::json::member(object, name);
  return value == nullptr || value->IsNull();
}

RpcResult<U256> quantity_result(RpcResult<rapidjson::Document> answer, std::string_view method) {
  if (!answer.ok()) return std::move(answer).error();
  const auto value = quantity(*answer);
  if (!value) return malformed(method, "no quantity");
  return *value;
}

RpcResult<std::uint64_t> small_result(RpcResult<rapidjson::Document> answer,
                                      std::string_view method) {
  auto value = quantity_result(std::move(answer), method);
  if (!value.ok()) return std::move(value).error();
  const auto small = value->to_uint64();
  if (!small) return malformed(method, "a quantity beyond 64 bits");
  return *small;
}

std::optional<Log> read_log(const rapidjson::Value& object) {
  Log log;
  const auto log_address = address(object, "address");
  const auto data = bytes(object, "data");
  const auto index = small_quantity(object, "logIndex");
  const auto* topics = model::json::member(object, "topics");
  if (!log_address || !data || !index || topics == nullptr || !topics->IsArray()) {
    return std::nullopt;
  }
  for (const auto& topic : topics->GetArray()) {
    const auto value = topic.IsString()
                           ? hash_from_hex({topic.GetString(), topic.GetStringLength()})
                           : std::nullopt;
    if (!value) return std::nullopt;
    log.topics.push_back(*value);
  }
  const auto* removed = model::json::member(object, "removed");
  log.address = *log_address;
  log.data = *data;
  log.log_index = *index;
  log.removed = removed != nullptr && removed->IsBool() && removed->GetBool();
  return log;
}

std::optional<Receipt> read_receipt(const rapidjson::Value& object) {
  Receipt receipt;
  const auto transaction_hash = hash(object, "transactionHash");
  const auto status = small_quantity(object, "status");
  const auto number = small_quantity(object, "blockNumber");
  const auto block_hash = hash(object, "blockHash");
  const auto gas_used = small_quantity(object, "gasUsed");
  const auto* logs = model::json::member(object, "logs");
  if (!transaction_hash || !status || *status > 1 || !number || !block_hash || !gas_used ||
      logs == nullptr || !logs->IsArray()) {
    return std::nullopt;
  }
  for (const auto& entry : logs->GetArray()) {
    auto log = read_log(entry);
    if (!log) return std::nullopt;
    receipt.logs.push_back(std::move(*log));
  }
  if (!is_null_or_missing(object, "contractAddress")) {
    receipt.contract_address = address(object, "contractAddress");
    if (!receipt.contract_address) return std::nullopt;
  }
  receipt.transaction_hash = *transaction_hash;
  receipt.succeeded = *status == 1;
  receipt.block_number = *number;
  receipt.block_hash = *block_hash;
  receipt.gas_used = *gas_used;
  receipt.effective_gas_price = quantity(object, "effectiveGasPrice");
  return receipt;
}

std::optional<TransactionInfo> read_transaction(const rapidjson::Value& object) {
  TransactionInfo info;
  const auto transaction_hash = hash(object, "hash");
  const auto nonce = small_quantity(object, "nonce");
  const auto from = address(object, "from");
  const auto value = quantity(object, "value");
  const auto input = bytes(object, "input");
  if (!transaction_hash || !nonce || !from || !value || !input) return std::nullopt;
  if (!is_null_or_missing(object, "to")) {
    info.to = address(object, "to");
    if (!info.to) return std::nullopt;
  }
  if (!is_null_or_missing(object, "blockHash")) {
    info.block_hash = hash(object, "blockHash");
    info.block_number = small_quantity(object, "blockNumber");
    if (!info.block_hash || !info.block_number) return std::nullopt;
  }
  info.hash = *transaction_hash;
  info.nonce = *nonce;
  info.from = *from;
  info.value = *value;
  info.input = *input;
  return info;
}

std::optional<Block> read_block(const rapidjson::Value& object) {
  Block block;
  const auto number = small_quantity(object, "number");
  const auto block_hash = hash(object, "hash");
  const auto parent = hash(object, "parentHash");
  const auto timestamp = small_quantity(object, "timestamp");
  if (!number || !block_hash || !parent || !timestamp) return std::nullopt;
  if (!is_null_or_missing(object, "baseFeePerGas")) {
    block.base_fee_per_gas = quantity(object, "baseFeePerGas");
    if (!block.base_fee_per_gas) return std::nullopt;
  }
  block.number = *number;
  block.hash = *block_hash;
  block.parent_hash = *parent;
  block.timestamp = *timestamp;
  return block;
}

std::optional<std::vector<U256>> quantities(const rapidjson::Value* array) {
  if (array == nullptr || !array->IsArray()) return std::nullopt;
  std::vector<U256> values;
  for (const auto& entry : array->GetArray()) {
    const auto value = quantity(entry);
    if (!value) return std::nullopt;
    values.push_back(*value);
  }
  return values;
}

}  // namespace

std::string block_tag(std::uint64_t number) {
  return U256(number).to_quantity();
}

RpcResult<std::uint64_t> Node::chain_id() {
  return small_result(client_->call("eth_chainId", "[]"), "eth_chainId");
}

RpcResult<std::uint64_t> Node::block_number() {
  return small_result(client_->call("eth_blockNumber", "[]"), "eth_blockNumber");
}

RpcResult<std::uint64_t> Node::transaction_count(const Address& account, std::string_view block) {
  return small_result(
      client_->call("eth_getTransactionCount", string_params({account.lowercase(), block})),
      "eth_getTransactionCount");
}

RpcResult<FeeHistory> Node::fee_history(std::uint64_t block_count, std::string_view newest_block,
                                        std::span<const double> reward_percentiles) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartArray();
  write(writer, block_tag(block_count));
  write(writer, newest_block);
  writer.StartArray();
  for (const double percentile : reward_percentiles) writer.Double(percentile);
  writer.EndArray();
  writer.EndArray();
  auto answer = client_->call("eth_feeHistory", buffer.GetString());
  if (!answer.ok()) return std::move(answer).error();
  FeeHistory history;
  const auto oldest = small_quantity(*answer, "oldestBlock");
  auto base_fees = quantities(model::json::member(*answer, "baseFeePerGas"));
  if (!oldest || !base_fees) return malformed("eth_feeHistory", "no oldestBlock or baseFeePerGas");
  history.oldest_block = *oldest;
  history.base_fee_per_gas = std::move(*base_fees);
  if (const auto* reward = model::json::member(*answer, "reward"); reward && reward->IsArray()) {
    for (const auto& block_rewards : reward->GetArray()) {
      auto values = quantities(&block_rewards);
      if (!values) return malformed("eth_feeHistory", "a reward that is not quantities");
      history.reward.push_back(std::move(*values));
    }
  }
  return history;
}

RpcResult<U256> Node::max_priority_fee_per_gas() {
  return quantity_result(client_->call("eth_maxPriorityFeePerGas", "[]"),
                         "eth_maxPriorityFeePerGas");
}

RpcResult<std::uint64_t> Node::estimate_gas(const CallRequest& request) {
  return small_result(client_->call("eth_estimateGas", call_params(request, std::nullopt)),
                      "eth_estimateGas");
}

RpcResult<Hash> Node::send_raw_transaction(std::string_view raw) {
  auto answer = client_->call("eth_sendRawTransaction", string_params({to_hex(raw)}));
  if (!answer.ok()) return std::move(answer).error();
  const auto value = answer->IsString()
                         ? hash_from_hex({answer->GetString(), answer->GetStringLength()})
                         : std::nullopt;
  if (!value) return malformed("eth_sendRawTransaction", "no transaction hash");
  return *value;
}

RpcResult<std::optional<Receipt>> Node::transaction_receipt(const Hash& transaction) {
  auto answer = client_->call("eth_getTransactionReceipt", string_params({to_hex(transaction)}));
  if (!answer.ok()) return std::move(answer).error();
  if (answer->IsNull()) return std::optional<Receipt>();
  auto receipt = read_receipt(*answer);
  if (!receipt) return malformed("eth_getTransactionReceipt", "a receipt without its fields");
  return std::optional<Receipt>(std::move(*receipt));
}

RpcResult<std::optional<TransactionInfo>> Node::transaction_by_hash(const Hash& transaction) {
  auto answer = client_->call("eth_getTransactionByHash", string_params({to_hex(transaction)}));
  if (!answer.ok()) return std::move(answer).error();
  if (answer->IsNull()) return std::optional<TransactionInfo>();
  auto info = read_transaction(*answer);
  if (!info) return malformed("eth_getTransactionByHash", "a transaction without its fields");
  return std::optional<TransactionInfo>(std::move(*info));
}

RpcResult<U256> Node::balance(const Address& account, std::string_view block) {
  return quantity_result(
      client_->call("eth_getBalance", string_params({account.lowercase(), block})),
      "eth_getBalance");
}

RpcResult<Bytes> Node::call(const CallRequest& request, std::string_view block) {
  auto answer = client_->call("eth_call", call_params(request, block));
  if (!answer.ok()) return std::move(answer).error();
  const auto value = answer->IsString() ? from_hex({answer->GetString(), answer->GetStringLength()})
                                        : std::nullopt;
  if (!value) return malformed("eth_call", "no bytes");
  return *value;
}

RpcResult<U256> Node::token_balance(const Address& token, const Address& holder,
                                    std::string_view block) {
  auto returned =
      call(CallRequest{std::nullopt, token, U256(0), abi::balance_of_call(holder)}, block);
  if (!returned.ok()) return std::move(returned).error();
  auto word = abi::decode_word(*returned);
  if (!word.ok()) return malformed("eth_call balanceOf", word.error().message);
  return *word;
}

RpcResult<std::optional<Block>> Node::block(std::string_view selector) {
  rapidjson::StringBuffer buffer;
  Writer writer(buffer);
  writer.StartArray();
  write(writer, selector);
  writer.Bool(false);  // hashes only: the header is what confirmations and reorgs need
  writer.EndArray();
  auto answer = client_->call("eth_getBlockByNumber", buffer.GetString());
  if (!answer.ok()) return std::move(answer).error();
  if (answer->IsNull()) return std::optional<Block>();
  auto header = read_block(*answer);
  if (!header) return malformed("eth_getBlockByNumber", "a block without its header fields");
  return std::optional<Block>(std::move(*header));
}

}  // namespace payrail::infra::evm
