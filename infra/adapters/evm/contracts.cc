#include "infra/adapters/evm/contracts.h"

#include <chrono>
#include <thread>

#include "infra/adapters/evm/abi.h"
#include "schemas/model/common/embedded_file.h"

namespace payrail::generated {
extern const payrail::model::EmbeddedFile evm_contract_files[];
extern const std::size_t evm_contract_files_count;
}  // namespace payrail::generated

namespace payrail::infra::evm {
namespace {

std::string_view embedded(std::string_view name) {
  for (std::size_t i = 0; i < generated::evm_contract_files_count; ++i) {
    if (generated::evm_contract_files[i].name == name) {
      return generated::evm_contract_files[i].content;
    }
  }
  return {};
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.remove_suffix(1);
  return text;
}

model::Error node_error(const RpcError& error) {
  return to_model_error(error);
}

}  // namespace

const Bytes& token_creation_code() {
  static const Bytes code = from_hex(trimmed(embedded("Token.bin"))).value_or(Bytes());
  return code;
}

std::string_view token_abi_json() {
  return embedded("Token.abi.json");
}

Bytes token_constructor_arguments(std::string_view name, std::string_view symbol, int decimals) {
  return abi::encode(
      {abi::dynamic(name), abi::dynamic(symbol), abi::word(static_cast<std::uint64_t>(decimals))});
}

Bytes token_mint_call(const Address& to, const U256& amount) {
  return abi::selector("mint(address,uint256)") + abi::encode({abi::word(to), abi::word(amount)});
}

Hash transfer_event_topic() {
  return keccak("Transfer(address,address,uint256)");
}

RpcResult<Fees> suggest_fees(Node& node) {
  auto priority = node.max_priority_fee_per_gas();
  if (!priority.ok()) return std::move(priority).error();
  auto latest = node.block(kLatest);
  if (!latest.ok()) return std::move(latest).error();
  const U256 base_fee =
      *latest && (*latest)->base_fee_per_gas ? *(*latest)->base_fee_per_gas : U256(0);
  const auto doubled = checked_multiply(base_fee, U256(2));
  const auto max_fee = doubled ? checked_add(*doubled, *priority) : std::nullopt;
  if (!max_fee) return RpcError{RpcFailure::malformed_response, 0, "fees beyond 256 bits", {}};
  return Fees{*priority, *max_fee};
}

model::Result<Receipt> wait_for_receipt(Node& node, const Hash& transaction, long timeout_ms,
                                        long poll_ms) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  while (true) {
    auto receipt = node.transaction_receipt(transaction);
    if (receipt.ok() && *receipt) return std::move(**receipt);
    if (!receipt.ok() && !receipt.error().retryable()) return node_error(receipt.error());
    if (std::chrono::steady_clock::now() >= deadline) {
      return model::Error::make(model::ErrorCode::provider_unavailable,
                                "transaction " + to_hex(transaction) + " not mined within " +
                                    std::to_string(timeout_ms) + " ms");
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(poll_ms));
  }
}

model::Result<Receipt> send_and_wait(Node& node, const Signer& signer, Transaction transaction,
                                     long timeout_ms) {
  auto chain_id = node.chain_id();
  if (!chain_id.ok()) return node_error(chain_id.error());
  auto nonce = node.transaction_count(signer.address(), kPending);
  if (!nonce.ok()) return node_error(nonce.error());
  auto fees = suggest_fees(node);
  if (!fees.ok()) return node_error(fees.error());
  transaction.chain_id = *chain_id;
  transaction.nonce = *nonce;
  transaction.fees = *fees;
  if (transaction.gas_limit == 0) {
    auto gas = node.estimate_gas(
        CallRequest{signer.address(), transaction.to, transaction.value, transaction.data});
    if (!gas.ok()) return node_error(gas.error());
    transaction.gas_limit = *gas;
  }
  auto signed_transaction = sign(transaction, signer);
  if (!signed_transaction.ok()) return std::move(signed_transaction).error();
  auto sent = node.send_raw_transaction(signed_transaction->raw);
  if (!sent.ok()) return node_error(sent.error());
  if (*sent != signed_transaction->hash) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "the node named the transaction " + to_hex(*sent) + ", not " +
                                  to_hex(signed_transaction->hash));
  }
  return wait_for_receipt(node, signed_transaction->hash, timeout_ms);
}

model::Result<Address> deploy_contract(Node& node, const Signer& signer,
                                       std::string_view creation_code,
                                       std::string_view constructor_arguments, long timeout_ms) {
  Transaction creation;
  creation.data = Bytes(creation_code) + Bytes(constructor_arguments);
  auto receipt = send_and_wait(node, signer, creation, timeout_ms);
  if (!receipt.ok()) return std::move(receipt).error();
  if (!receipt->succeeded || !receipt->contract_address) {
    return model::Error::make(
        model::ErrorCode::internal_error,
        "the contract creation " + to_hex(receipt->transaction_hash) + " reverted");
  }
  return *receipt->contract_address;
}

}  // namespace payrail::infra::evm
