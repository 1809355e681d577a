#include "infra/adapters/chain/evm_chain_adapter.h"

#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/contracts.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"

namespace payrail::infra::chain {
namespace {

using model::Error;
using model::ErrorCode;

Error unavailable(std::string message) {
  return Error::make(ErrorCode::provider_unavailable, std::move(message));
}

// The node's suggestion, capped by configuration: a priority fee above its cap is the cap, a max
// fee above its cap is the cap, and the priority fee never exceeds the max fee.
evm::Fees capped(evm::Fees fees, const EvmNetwork& config) {
  fees.max_priority_fee_per_gas =
      std::min(fees.max_priority_fee_per_gas, config.max_priority_fee_per_gas_cap_wei);
  fees.max_fee_per_gas = std::min(fees.max_fee_per_gas, config.max_fee_per_gas_cap_wei);
  fees.max_priority_fee_per_gas = std::min(fees.max_priority_fee_per_gas, fees.max_fee_per_gas);
  return fees;
}

// The payout's amount in base units: the token's decimals (ETH: 18). The API refused an amount the
// token cannot carry (check_live_payout), so an error here is a configuration changed since.
model::Result<evm::U256> base_units(const EvmNetwork& config, const Transfer& transfer) {
  if (transfer.asset == "ETH") return evm::abi::to_base_units(transfer.amount, 18);
  const auto token = config.tokens.find(transfer.asset);
  if (token == config.tokens.end()) {
    return unavailable("no " + transfer.asset + " contract configured on " + config.name);
  }
  return evm::abi::to_base_units(transfer.amount, token->second.decimals);
}

// `old` raised by geth's rule for a replacement (both fees at least 10 % higher: old * 11 / 10,
// plus one for the rounding), and at least `prepared` (what the node suggests now). The priority
// fee never exceeds the max fee. nullopt on an overflow.
std::optional<evm::Fees> raised(const evm::Fees& old, const std::optional<evm::Fees>& prepared) {
  const auto bump = [](const evm::U256& fee) -> std::optional<evm::U256> {
    const auto times_eleven = checked_multiply(fee, evm::U256(11));
    if (!times_eleven) return std::nullopt;
    std::uint64_t remainder = 0;
    return checked_add(times_eleven->divide(10, remainder), evm::U256(1));
  };
  auto max_fee = bump(old.max_fee_per_gas);
  auto priority_fee = bump(old.max_priority_fee_per_gas);
  if (!max_fee || !priority_fee) return std::nullopt;
  evm::Fees fees{*priority_fee, *max_fee};
  if (prepared) {
    fees.max_fee_per_gas = std::max(fees.max_fee_per_gas, prepared->max_fee_per_gas);
    fees.max_priority_fee_per_gas =
        std::max(fees.max_priority_fee_per_gas, prepared->max_priority_fee_per_gas);
  }
  fees.max_priority_fee_per_gas = std::min(fees.max_priority_fee_per_gas, fees.max_fee_per_gas);
  return fees;
}

}  // namespace

model::Result<std::unique_ptr<EvmChainAdapter>> EvmChainAdapter::create(
    EvmNetworks networks, std::map<std::string, std::unique_ptr<evm::Signer>> signers,
    evm::RpcOptions rpc_options) {
  std::unique_ptr<EvmChainAdapter> adapter(new EvmChainAdapter());
  for (auto& [name, config] : networks.by_name) {
    auto client = evm::JsonRpcClient::create(config.rpc_urls, rpc_options);
    if (!client.ok()) {
      return Error::make(ErrorCode::internal_error,
                         "PAYRAIL_EVM_NETWORKS_FILE: " + name + ": " + client.error().message);
    }
    Chain chain;
    chain.config = config;
    chain.node = std::make_unique<evm::Node>(std::move(*client));
    if (auto signer = signers.find(name); signer != signers.end()) {
      chain.signer = std::move(signer->second);
    }
    adapter->chains_.emplace(name, std::move(chain));
  }
  return adapter;
}

EvmChainAdapter::Chain* EvmChainAdapter::chain(std::string_view network) {
  const auto found = chains_.find(network);
  return found == chains_.end() ? nullptr : &found->second;
}

const EvmChainAdapter::Chain* EvmChainAdapter::chain(std::string_view network) const {
  const auto found = chains_.find(network);
  return found == chains_.end() ? nullptr : &found->second;
}

model::Status EvmChainAdapter::check_chain_ids() {
  for (auto& [name, chain] : chains_) {
    const auto answered = chain.node->chain_id();
    if (!answered.ok()) {
      return unavailable("the node of " + name +
                         " did not answer its chain id: " + answered.error().message);
    }
    if (*answered != chain.config.chain_id) {
      return Error::make(ErrorCode::internal_error, "the node of " + name + " answers chain id " +
                                                        std::to_string(*answered) + ", not " +
                                                        std::to_string(chain.config.chain_id) +
                                                        " as PAYRAIL_EVM_NETWORKS_FILE says");
    }
  }
  return model::ok_status();
}

model::Result<std::uint64_t> EvmChainAdapter::chain_next_nonce(std::string_view network) {
  auto* found = chain(network);
  if (found == nullptr || found->signer == nullptr) {
    return unavailable("no hot wallet on " + std::string(network));
  }
  auto nonce = found->node->transaction_count(found->signer->address(), evm::kPending);
  if (!nonce.ok()) return evm::to_model_error(nonce.error());
  return *nonce;
}

std::optional<std::string> EvmChainAdapter::sender(std::string_view network) const {
  const auto* found = chain(network);
  if (found == nullptr || found->signer == nullptr) return std::nullopt;
  return found->signer->address().lowercase();
}

std::vector<std::string> EvmChainAdapter::networks() const {
  std::vector<std::string> names;
  for (const auto& [name, chain] : chains_) names.push_back(name);
  return names;
}

model::Result<std::vector<Funding>> EvmChainAdapter::check_funding(
    const std::vector<FundingNeed>& needs) {
  std::vector<Funding> answers(needs.size(), Funding::waiting);
  // What each wallet holds, read once per (network, asset) for this call, then spent in turn.
  std::map<std::pair<std::string, std::string>, evm::U256> held;
  std::map<std::pair<std::string, std::string>, long> waiting;
  const auto holding = [&](Chain& chain, const std::string& asset) -> model::Result<evm::U256*> {
    const auto key = std::make_pair(chain.config.name, asset);
    if (auto found = held.find(key); found != held.end()) return &found->second;
    const auto address = chain.signer->address();
    auto balance = asset == "ETH"
                       ? chain.node->balance(address, evm::kLatest)
                       : chain.node->token_balance(chain.config.tokens.at(asset).contract, address,
                                                   evm::kLatest);
    if (!balance.ok()) return evm::to_model_error(balance.error());
    const int decimals = asset == "ETH" ? 18 : chain.config.tokens.at(asset).decimals;
    metrics::set_hot_wallet_balance(chain.config.name, asset,
                                    std::stod(evm::abi::from_base_units(*balance, decimals)));
    return &held.emplace(key, *balance).first->second;
  };
  for (std::size_t i = 0; i < needs.size(); ++i) {
    const auto& transfer = needs[i].transfer;
    auto* found = chain(transfer.network);
    if (found == nullptr || found->signer == nullptr) continue;  // waits for a wallet
    if (transfer.asset != "ETH" && !found->config.tokens.contains(transfer.asset)) continue;
    auto amount = base_units(found->config, transfer);
    if (!amount.ok()) continue;
    std::optional<evm::Fees> fees;
    {
      const std::lock_guard lock(fees_mutex_);
      fees = found->fees;
    }
    const auto gas_limit =
        transfer.asset == "ETH" ? evm::kNativeTransferGas : found->config.token_transfer_gas;
    const auto max_fee = fees ? fees->max_fee_per_gas : found->config.max_fee_per_gas_cap_wei;
    const auto gas = checked_multiply(max_fee, evm::U256(gas_limit));
    auto token = holding(*found, transfer.asset);
    if (!token.ok()) return token.error();
    auto native = holding(*found, "ETH");
    if (!native.ok()) return native.error();
    // ETH pays both the amount and the gas from one balance.
    const auto wei_needed = transfer.asset == "ETH" && gas ? checked_add(*gas, *amount) : gas;
    const bool enough =
        wei_needed && **native >= *wei_needed && (transfer.asset == "ETH" || **token >= *amount);
    if (enough) {
      **native = *checked_subtract(**native, *wei_needed);
      if (transfer.asset != "ETH") **token = *checked_subtract(**token, *amount);
      answers[i] = Funding::funded;
      continue;
    }
    answers[i] = needs[i].waited_s > static_cast<double>(found->config.funding_wait_max_s)
                     ? Funding::given_up
                     : Funding::waiting;
    ++waiting[{transfer.network, transfer.asset}];
  }
  for (const auto& [name, chain] : chains_) {
    for (const auto* asset : {"USDC", "USDT", "ETH"}) {
      const auto key = std::make_pair(name, std::string(asset));
      const auto count = waiting.find(key);
      metrics::set_payouts_awaiting_funds(name, asset, count == waiting.end() ? 0 : count->second);
    }
  }
  return answers;
}

model::Status EvmChainAdapter::prepare(std::string_view network) {
  auto* found = chain(network);
  if (found == nullptr) return unavailable("no live chain adapter serves " + std::string(network));
  auto suggested = evm::suggest_fees(*found->node);
  if (!suggested.ok()) return evm::to_model_error(suggested.error());
  const std::lock_guard lock(fees_mutex_);
  found->fees = capped(*suggested, found->config);
  return model::ok_status();
}

model::Result<evm::Transaction> EvmChainAdapter::transaction_of(const Chain& chain,
                                                                const Transfer& transfer,
                                                                std::uint64_t nonce,
                                                                const evm::Fees& fees) const {
  const auto recipient = evm::parse_address(transfer.address);
  if (!recipient) return model::bad_request("the destination is not an EVM address", "address");
  auto amount = base_units(chain.config, transfer);
  if (!amount.ok()) return amount.error();
  const auto chain_id = chain.config.chain_id;
  if (transfer.asset == "ETH")
    return evm::native_transfer(chain_id, nonce, fees, *recipient, *amount);
  const auto& token = chain.config.tokens.at(transfer.asset);
  return evm::token_transfer(chain_id, nonce, fees, chain.config.token_transfer_gas, token.contract,
                             *recipient, *amount);
}

model::Result<model::SignedTransfer> EvmChainAdapter::sign(const Transfer& transfer,
                                                           std::optional<std::uint64_t> nonce) {
  const auto* found = chain(transfer.network);
  if (found == nullptr || found->signer == nullptr || !nonce) {
    return unavailable("no hot wallet on " + transfer.network);
  }
  std::optional<evm::Fees> fees;
  {
    const std::lock_guard lock(fees_mutex_);
    fees = found->fees;
  }
  if (!fees) return unavailable("the fees of " + transfer.network + " are not read yet");
  auto transaction = transaction_of(*found, transfer, *nonce, *fees);
  if (!transaction.ok()) return transaction.error();
  return sign_transaction(*found, *transaction, model::ChainTransactionKind::transfer);
}

model::Result<model::SignedTransfer> EvmChainAdapter::sign_transaction(
    const Chain& chain, const evm::Transaction& transaction,
    model::ChainTransactionKind kind) const {
  auto signed_transaction = evm::sign(transaction, *chain.signer);
  if (!signed_transaction.ok()) return signed_transaction.error();
  model::SignedTransfer signed_transfer;
  signed_transfer.network = chain.config.name;
  signed_transfer.sender = signed_transaction->sender.lowercase();
  signed_transfer.nonce = transaction.nonce;
  signed_transfer.kind = kind;
  signed_transfer.raw = evm::to_hex(signed_transaction->raw);
  signed_transfer.hash = evm::to_hex(signed_transaction->hash);
  signed_transfer.max_fee_per_gas = transaction.fees.max_fee_per_gas.to_decimal();
  signed_transfer.max_priority_fee_per_gas = transaction.fees.max_priority_fee_per_gas.to_decimal();
  return signed_transfer;
}

model::Result<evm::Transaction> EvmChainAdapter::recorded_transaction(
    const model::SignedTransfer& latest) const {
  const auto raw = evm::from_hex(latest.raw);
  if (!raw) return Error::make(ErrorCode::internal_error, "a recorded transaction is not hex");
  auto decoded = evm::decode_signed(*raw);
  if (!decoded.ok()) return decoded.error();
  return decoded->transaction;
}

std::optional<evm::Fees> EvmChainAdapter::prepared_fees(const Chain& chain) const {
  const std::lock_guard lock(fees_mutex_);
  return chain.fees;
}

model::Result<model::SignedTransfer> EvmChainAdapter::replace(const model::SignedTransfer& latest) {
  const auto* found = chain(latest.network);
  if (found == nullptr || found->signer == nullptr) {
    return unavailable("no hot wallet on " + latest.network);
  }
  auto transaction = recorded_transaction(latest);
  if (!transaction.ok()) return transaction.error();
  const auto bumped = raised(transaction->fees, prepared_fees(*found));
  if (!bumped || bumped->max_fee_per_gas > found->config.max_fee_per_gas_cap_wei ||
      bumped->max_priority_fee_per_gas > found->config.max_priority_fee_per_gas_cap_wei) {
    return unavailable("the fee caps of " + latest.network + " leave no room to replace " +
                       latest.hash);
  }
  transaction->fees = *bumped;
  return sign_transaction(*found, *transaction, latest.kind);
}

model::Result<model::SignedTransfer> EvmChainAdapter::fill_nonce(
    const model::SignedTransfer& latest) {
  const auto* found = chain(latest.network);
  if (found == nullptr || found->signer == nullptr) {
    return unavailable("no hot wallet on " + latest.network);
  }
  auto transaction = recorded_transaction(latest);
  if (!transaction.ok()) return transaction.error();
  const auto bumped = raised(transaction->fees, prepared_fees(*found));
  // The filler may exceed the caps by one raise, never more: the transfer it stands for used
  // them up, and a filler that cannot replace it in the nodes' pools would leave the nonce to
  // a transfer that can never be mined. At 21000 gas it costs less than the token transfer was
  // allowed to (token_transfer_gas at the cap), and at most 10 % more than a native one.
  const auto ceiling = raised(
      {found->config.max_priority_fee_per_gas_cap_wei, found->config.max_fee_per_gas_cap_wei},
      std::nullopt);
  const auto floor = raised(transaction->fees, std::nullopt);  // geth's replacement rule
  if (!bumped || !ceiling || !floor) {
    return unavailable("the fees of " + latest.hash + " leave no room for a nonce filler");
  }
  evm::Fees fees;
  fees.max_fee_per_gas =
      std::max(floor->max_fee_per_gas, std::min(bumped->max_fee_per_gas, ceiling->max_fee_per_gas));
  fees.max_priority_fee_per_gas =
      std::max(floor->max_priority_fee_per_gas,
               std::min(bumped->max_priority_fee_per_gas, ceiling->max_priority_fee_per_gas));
  if (fees.max_fee_per_gas > ceiling->max_fee_per_gas ||
      fees.max_priority_fee_per_gas > ceiling->max_priority_fee_per_gas) {
    return unavailable("the fees of " + latest.hash + " leave no room for a nonce filler");
  }
  fees.max_priority_fee_per_gas = std::min(fees.max_priority_fee_per_gas, fees.max_fee_per_gas);
  const auto filler = evm::self_transfer(found->config.chain_id, transaction->nonce, fees,
                                         found->signer->address());
  return sign_transaction(*found, filler, model::ChainTransactionKind::nonce_filler);
}

model::Result<SendOutcome> EvmChainAdapter::send(const Transfer& transfer,
                                                 const model::SignedTransfer& signed_transfer) {
  auto* found = chain(transfer.network);
  if (found == nullptr) return unavailable("no live chain adapter serves " + transfer.network);
  const auto raw = evm::from_hex(signed_transfer.raw);
  const auto hash = evm::hash_from_hex(signed_transfer.hash);
  if (!raw || !hash) {
    return Error::make(ErrorCode::internal_error, "a recorded transaction is not hex");
  }
  auto& node = *found->node;
  // Taken: the head now is when the wait for its mining starts (a failed read: at the next send).
  const auto taken = [&]() {
    const auto head = node.block_number();
    return SendOutcome{true, "", head.ok() ? std::optional<std::uint64_t>(*head) : std::nullopt};
  };
  const auto sent = node.send_raw_transaction(*raw);
  if (sent.ok()) return taken();
  const auto& error = sent.error();
  const auto rejection = error.rejection();
  if (rejection == evm::Rejection::already_known) return taken();
  if (rejection == evm::Rejection::fee_below_base_fee) {
    // The base fee rose above its max fee since its fees were read: these bytes will never be
    // taken as they are, and re-sending them would hold every later nonce of the wallet behind
    // them. Settlement replaces it at once (stale), from the head now (where a refusal that
    // persists starts counting towards a nonce filler).
    auto outcome = taken();
    outcome.below_base_fee = true;
    return outcome;
  }
  if (rejection == evm::Rejection::nonce_too_low) {
    // Sent before (a retry after a crash or a lost answer): our own transaction took the nonce.
    const auto known = node.transaction_by_hash(*hash);
    if (known.ok() && known->has_value()) return taken();
  }
  // Never a rejection: the nonce is allocated, and a payout failed while its nonce is unused
  // would leave a gap behind it. Retried (a dependency failure) until the node takes it.
  return unavailable("the node of " + transfer.network + " did not take transaction " +
                     signed_transfer.hash + ": " + std::string(evm::rejection_name(rejection)) +
                     " " + error.message);
}

model::Result<Inspection> EvmChainAdapter::inspect(
    std::string_view network, const std::vector<model::SignedTransfer>& transactions) {
  auto* found = chain(network);
  if (found == nullptr) return unavailable("no live chain adapter serves " + std::string(network));
  auto& node = *found->node;
  Inspection inspection;
  for (const auto& transaction : transactions) {
    const auto hash = evm::hash_from_hex(transaction.hash);
    if (!hash) continue;
    auto receipt = node.transaction_receipt(*hash);
    if (!receipt.ok()) return evm::to_model_error(receipt.error());
    if (!receipt->has_value()) continue;
    const auto& mined = **receipt;
    auto head = node.block_number();
    if (!head.ok()) return evm::to_model_error(head.error());
    inspection.mined_hash = transaction.hash;
    inspection.succeeded = mined.succeeded;
    inspection.block_number = mined.block_number;
    inspection.block_hash = evm::to_hex(mined.block_hash);
    inspection.final =
        *head >= mined.block_number &&
        *head - mined.block_number + 1 >= static_cast<std::uint64_t>(found->config.confirmations);
    return inspection;
  }
  // None mined: stale once the latest was taken replace_after_blocks blocks ago or more.
  // (A replacement not taken by a node yet counts from the one it replaces; one refused for a fee
  // below the base fee counts from that refusal, and is stale at once: see the re-send below.)
  std::optional<std::uint64_t> sent_block;
  for (const auto& transaction : transactions) {
    if (transaction.sent_block) sent_block = transaction.sent_block;
  }
  if (sent_block) {
    auto head = node.block_number();
    if (!head.ok()) return evm::to_model_error(head.error());
    const auto replace_after = static_cast<std::uint64_t>(found->config.replace_after_blocks);
    inspection.stale = *head >= *sent_block + replace_after;
    inspection.stuck = *head >= *sent_block + 2 * replace_after;
  }
  // The latest is sent again as recorded (an earlier one was replaced by it): a node that lost it
  // (a restart, a reorg that undid its block) takes it again; one that has it says so.
  if (transactions.empty()) return inspection;
  const auto& latest = transactions.back();
  const auto raw = evm::from_hex(latest.raw);
  if (!raw || raw->empty()) return inspection;
  const auto resent = node.send_raw_transaction(*raw);
  if (!resent.ok() && resent.error().rejection() == evm::Rejection::fee_below_base_fee) {
    // Refused at once for a max fee below the base fee: never taken as it is, replaced now.
    inspection.stale = true;
  } else if (!resent.ok() && resent.error().rejection() != evm::Rejection::already_known &&
             resent.error().rejection() != evm::Rejection::nonce_too_low) {
    log::warn("chain.resend_refused", {{"network", std::string(network)},
                                       {"hash", latest.hash},
                                       {"error", resent.error().message}});
  }
  return inspection;
}

}  // namespace payrail::infra::chain
