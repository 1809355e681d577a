// Live EVM payouts through faults, against one anvil reached through a fault proxy (the node's
// network), with two execution processes: kill -9 of execution after it signed and recorded a
// transfer but before any node took it, and again after the node mined it but before its outcome
// was recorded; the node unreachable for 30 s while payouts keep coming; 200 concurrent payouts
// across every partition of payouts.approved and both processes. Each time every payout
// completes with exactly one transfer (the recipient's balanceOf is its amount, its one recorded
// transaction is the mined one) and the hot wallet's nonces stay contiguous, each allocated once:
// nothing lost, nothing doubled.
#include <gtest/gtest.h>

#include <signal.h>
#include <unistd.h>
#include <atomic>

#include <fstream>
#include <thread>

#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/contracts.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/money/ledger.h"
#include "tests/support/anvil.h"
#include "tests/support/fault_proxy.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

using namespace infra::evm;
constexpr long kReceiptTimeoutMs = 20000;

class EvmPayoutRecovery : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    anvil_ = new Anvil(Anvil::Options{.chain_id = 31337});
    proxy_ = new FaultProxy(anvil_->port());
    node_ = anvil_->node().release();  // direct: what the chain really holds
    const auto deployer = Anvil::signer(kAnvilKey0);
    token_ = new Address(deploy_contract(*node_, *deployer, token_creation_code(),
                                         token_constructor_arguments("USD Coin", "USDC", 6),
                                         kReceiptTimeoutMs)
                             .value());
    key_ = new std::string(new_key());
    wallet_ = LocalKeySigner::from_bytes(*key_).value().release();
    anvil_->set_balance(wallet_->address(), *abi::to_base_units("100", 18));
    Transaction mint;
    mint.to = *token_;
    mint.data = token_mint_call(wallet_->address(), *abi::to_base_units("1000000", 6));
    if (!send_and_wait(*node_, *deployer, mint, kReceiptTimeoutMs).ok()) {
      throw std::runtime_error("mint failed");
    }
    networks_file_ = new std::string(write_networks_file());
    stack_ = new TestStack({.workers = {"screening", "execution", "settlement"},
                            .env = {{"PAYRAIL_CHAIN_ADAPTER", "evm"},
                                    {"PAYRAIL_EVM_NETWORKS_FILE", *networks_file_},
                                    {"PAYRAIL_SETTLEMENT_DELAY_MS", "50"}},
                            .processes = {{"execution", 2}}});
    import_wallet();
    stack_->start(std::vector<std::string>{"execution", "execution-2", "settlement"});
    org_ = new TestOrganization(stack_->create_organization());
    stack_->verify_business(*org_);
    const auto created = stack_->http().post(
        "/v1/api-keys", R"({"mode":"live"})",
        {{"Authorization", "Bearer " + org_->session}, {"Payrail-Organization", org_->id}});
    if (created.status != 201) throw std::runtime_error("live key: " + created.body);
    live_key_ = new std::string(created.json()["key"].GetString());
    fund_live("10000");
  }
  static void TearDownTestSuite() {
    delete stack_;
    std::remove(networks_file_->c_str());
    delete networks_file_;
    delete live_key_;
    delete org_;
    delete wallet_;
    delete key_;
    delete token_;
    delete node_;
    delete proxy_;
    delete anvil_;
  }
  void TearDown() override {
    proxy_->clear_faults();
    EXPECT_EQ(ledger_mismatch(stack_->database()), "");
    EXPECT_EQ(nonce_gaps(), "") << "the hot wallet's nonces";
  }

  static std::string new_key() {
    for (;;) {
      auto key = infra::crypto::random_bytes(32);
      if (LocalKeySigner::from_bytes(key).ok()) return key;
    }
  }
  static std::string write_networks_file() {
    char path[] = "/tmp/payrail-evm-faults-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp");
    ::close(fd);
    std::ofstream(path) << R"({"optimism":{"chain_id":31337,"rpc_urls":["http://127.0.0.1:)" +
                               std::to_string(proxy_->port()) +
                               R"("],"confirmations":1,"max_fee_per_gas_cap_wei":"500000000000",)"
                               R"("max_priority_fee_per_gas_cap_wei":"50000000000","tokens":)"
                               R"({"USDC":{"address":")" +
                               token_->lowercase() + R"(","decimals":6}}}})";
    return path;
  }
  static void import_wallet() {
    char path[] = "/tmp/payrail-evm-key-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp");
    ::close(fd);
    std::ofstream(path) << infra::crypto::hex_encode(*key_) << "\n";
    const auto [code, output] =
        stack_->cli({"evm-wallet-create", "--network", "optimism", "--key-file", path});
    std::remove(path);
    if (code != 0) throw std::runtime_error("evm-wallet-create: " + output);
  }
  static void fund_live(const std::string& amount) {
    infra::pg::Pool pool({.url = stack_->database().url(), .max_connections = 1});
    const auto funded = pool.transact([&](pqxx::work& tx) -> model::Status {
      infra::store::ledger::apply(tx, org_->id, model::Mode::live, "USDC",
                                  infra::store::ledger::Movement::sandbox_funding, std::nullopt,
                                  amount);
      return model::ok_status();
    });
    if (!funded.ok()) throw std::runtime_error(funded.error().message);
  }

  // A live payout to a fresh address: its id and recipient.
  std::pair<std::string, std::string> create(const std::string& amount) {
    // Called from several threads at once (the 200-payout case): each key must be its own.
    static std::atomic<int> count = 0;
    const auto recipient = random_evm_address();
    const auto created =
        create_payout(stack_->http(), *live_key_, "evm-fault-" + std::to_string(++count),
                      payout_body(amount, "USDC", "optimism", recipient));
    EXPECT_EQ(created.status, 201) << created.body;
    return {created.status == 201 ? created.json()["id"].GetString() : "", recipient};
  }
  std::string scalar(const std::string& sql) { return stack_->database().scalar(sql); }
  std::string wait_for_scalar(const std::string& sql, const std::string& expected,
                              std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    auto answer = scalar(sql);
    while (answer != expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      answer = scalar(sql);
    }
    return answer;
  }
  // Whichever process holds the payout's partition: both.
  static void kill_execution() {
    for (const auto& name : stack_->process_names("execution")) stack_->stop(name, SIGKILL);
  }
  static void start_execution() { stack_->start(stack_->process_names("execution")); }
  static std::uint64_t mined_nonce() {
    return node_->transaction_count(wallet_->address(), kLatest).value();
  }
  // The node took the transaction (it answered): it is mined at once (automine), or soon.
  static std::uint64_t wait_for_mined_nonce(std::uint64_t expected) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    auto nonce = mined_nonce();
    while (nonce < expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
      nonce = mined_nonce();
    }
    return nonce;
  }
  // The token's Transfer logs from the hot wallet (to `recipient` only, when given), in every
  // block the node holds: what really moved, read from the chain.
  static std::size_t transfer_logs(const std::string& recipient = "") {
    const auto topic = [](const std::string& address) {
      return "\"0x000000000000000000000000" + address.substr(2) + "\"";
    };
    const auto to =
        recipient.empty() ? std::string("null") : topic(parse_address(recipient)->lowercase());
    const auto logs =
        anvil_->call("eth_getLogs", R"([{"fromBlock":"0x0","toBlock":"latest","address":")" +
                                        token_->lowercase() + R"(","topics":[")" +
                                        to_hex(transfer_event_topic()) + "\"," +
                                        topic(wallet_->address().lowercase()) + "," + to + "]}]");
    if (!logs.IsArray()) {
      ADD_FAILURE() << "eth_getLogs did not answer a list";
      return 0;
    }
    return logs.GetArray().Size();
  }
  // Completed with exactly one transfer: one recorded transaction, the mined one, the recipient
  // holding exactly the amount, and one Transfer log to it.
  void expect_paid_once(const std::string& id, const std::string& recipient,
                        const std::string& base_units) {
    EXPECT_EQ(wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"},
                              std::chrono::seconds(90)),
              "completed");
    EXPECT_EQ(scalar("SELECT count(*) || '/' || bool_and(t.hash = p.tx_hash) FROM "
                     "evm_transactions t JOIN payouts p ON p.id = t.payout_id WHERE p.id = '" +
                     id + "'"),
              "1/true");
    EXPECT_EQ(
        node_->token_balance(*token_, *parse_address(recipient), kLatest).value().to_decimal(),
        base_units);
    EXPECT_EQ(transfer_logs(recipient), 1u) << "Transfer logs to " << recipient;
  }
  // Empty when the wallet's allocated nonces run from its first without a gap, each mined once.
  std::string nonce_gaps() {
    const auto allocated = scalar(
        "SELECT count(*) || '/' || coalesce(max(nonce) - min(nonce) + 1, 0) FROM "
        "evm_nonce_allocations WHERE network = 'optimism'");
    const auto slash = allocated.find('/');
    if (allocated.substr(0, slash) != allocated.substr(slash + 1)) return "allocated " + allocated;
    return "";
  }

  static Anvil* anvil_;
  static FaultProxy* proxy_;
  static Node* node_;
  static Address* token_;
  static std::string* key_;
  static LocalKeySigner* wallet_;
  static std::string* networks_file_;
  static TestStack* stack_;
  static TestOrganization* org_;
  static std::string* live_key_;
};
Anvil* EvmPayoutRecovery::anvil_ = nullptr;
FaultProxy* EvmPayoutRecovery::proxy_ = nullptr;
Node* EvmPayoutRecovery::node_ = nullptr;
Address* EvmPayoutRecovery::token_ = nullptr;
std::string* EvmPayoutRecovery::key_ = nullptr;
LocalKeySigner* EvmPayoutRecovery::wallet_ = nullptr;
std::string* EvmPayoutRecovery::networks_file_ = nullptr;
TestStack* EvmPayoutRecovery::stack_ = nullptr;
TestOrganization* EvmPayoutRecovery::org_ = nullptr;
std::string* EvmPayoutRecovery::live_key_ = nullptr;

TEST_F(EvmPayoutRecovery, KilledAfterSigningBeforeAnyNodeTookItSendsTheRecordedBytesOnce) {
  const auto nonce_before = mined_nonce();
  const auto logs_before = transfer_logs();
  // Every request reaches the node but the sends: funds are checked, the transfer is signed and
  // recorded, and no node takes it.
  proxy_->set_faults({.reset_requests_containing = "eth_sendRawTransaction"});
  const auto [id, recipient] = create("2");
  ASSERT_EQ(wait_for_scalar("SELECT count(*) FROM evm_transactions WHERE payout_id = '" + id +
                                "' AND state = 'signed'",
                            "1"),
            "1");
  const auto hash = scalar("SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "'");
  kill_execution();
  EXPECT_EQ(mined_nonce(), nonce_before);  // signed and recorded, never sent
  proxy_->clear_faults();
  start_execution();
  expect_paid_once(id, recipient, "2000000");
  EXPECT_EQ(scalar("SELECT tx_hash FROM payouts WHERE id = '" + id + "'"), hash);
  EXPECT_EQ(mined_nonce(), nonce_before + 1);
  EXPECT_EQ(transfer_logs(), logs_before + 1);
}

TEST_F(EvmPayoutRecovery, KilledAfterTheNodeMinedItBeforeItsOutcomeWasRecordedPaysOnce) {
  const auto nonce_before = mined_nonce();
  const auto logs_before = transfer_logs();
  const auto held_before = proxy_->held_answers();
  // The node takes the send and mines it; its answer stays in the proxy until the faults are
  // cleared, after the kill: execution cannot have recorded the outcome, whatever the timing.
  proxy_->set_faults({.hold_answers_to_requests_containing = "eth_sendRawTransaction"});
  const auto [id, recipient] = create("3");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (proxy_->held_answers() == held_before && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
  ASSERT_EQ(proxy_->held_answers(), held_before + 1) << "the node never answered the send";
  kill_execution();  // the node's answer is still held
  EXPECT_EQ(wait_for_mined_nonce(nonce_before + 1), nonce_before + 1);
  EXPECT_EQ(scalar("SELECT coalesce(outcome, 'none') FROM payout_broadcasts WHERE payout_id = '" +
                   id + "'"),
            "none");
  proxy_->clear_faults();  // the gate opens: the answer goes to a dead process
  start_execution();
  expect_paid_once(id, recipient, "3000000");
  EXPECT_EQ(mined_nonce(), nonce_before + 1);
  EXPECT_EQ(transfer_logs(), logs_before + 1);
}

TEST_F(EvmPayoutRecovery, TheNodeAway30SecondsPayoutsWaitAndResumeNoneLostOrDoubled) {
  const auto nonce_before = mined_nonce();
  const auto logs_before = transfer_logs();
  std::vector<std::pair<std::string, std::string>> payouts;
  for (int i = 0; i < 3; ++i) payouts.push_back(create("1." + std::to_string(i + 1)));
  proxy_->set_faults({.reset_per_mille = 1000});
  const auto away_until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < away_until) {
    payouts.push_back(create("2." + std::to_string(payouts.size())));
    std::this_thread::sleep_for(std::chrono::seconds(3));
  }
  proxy_->clear_faults();
  for (std::size_t i = 0; i < payouts.size(); ++i) {
    const auto amount = i < 3 ? "1." + std::to_string(i + 1) : "2." + std::to_string(i);
    const auto units = abi::to_base_units(amount, 6).value().to_decimal();
    expect_paid_once(payouts[i].first, payouts[i].second, units);
  }
  EXPECT_EQ(mined_nonce(), nonce_before + payouts.size());
  EXPECT_EQ(transfer_logs(), logs_before + payouts.size());
}

TEST_F(EvmPayoutRecovery, TwoHundredConcurrentPayoutsTakeContiguousNoncesOneTransferEach) {
  const auto nonce_before = mined_nonce();
  const auto logs_before = transfer_logs();
  constexpr int kThreads = 8;
  constexpr int kPerThread = 25;
  std::vector<std::vector<std::pair<std::string, std::string>>> created(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i) created[t].push_back(create("0.5"));
    });
  }
  for (auto& thread : threads) thread.join();
  std::vector<std::string> ids;
  for (const auto& each : created) {
    for (const auto& [id, recipient] : each) {
      ASSERT_FALSE(id.empty());
      ids.push_back(id);
    }
  }
  ASSERT_EQ(ids.size(), 200u);
  std::string in_list;
  for (const auto& id : ids) in_list += (in_list.empty() ? "'" : ",'") + id + "'";
  EXPECT_EQ(wait_for_scalar("SELECT count(*) FROM payouts WHERE status = 'completed' AND id IN (" +
                                in_list + ")",
                            "200", std::chrono::seconds(180)),
            "200");
  for (const auto& each : created) {
    for (const auto& [id, recipient] : each) expect_paid_once(id, recipient, "500000");
  }
  // One nonce each, contiguous after the ones before (TearDown checks the whole range).
  EXPECT_EQ(scalar("SELECT count(DISTINCT nonce) || '/' || (max(nonce) - min(nonce) + 1) FROM "
                   "evm_nonce_allocations WHERE payout_id IN (" +
                   in_list + ")"),
            "200/200");
  EXPECT_EQ(mined_nonce(), nonce_before + 200);
  EXPECT_EQ(transfer_logs(), logs_before + 200);  // one each (expect_paid_once), none besides
  // Both processes sent some of them.
  for (const auto& name : stack_->process_names("execution")) {
    EXPECT_NE(stack_->process(name).log().find("execution.finished"), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace payrail::testing
