// Live payouts on a real EVM node (anvil, one for this file, automine) with
// PAYRAIL_CHAIN_ADAPTER=evm: a USDC payout moves exactly its amount to the recipient (balanceOf
// read from the node), is completed with the mined hash, its event written and the ledger whole; an
// 18-decimal token (bsc's USDC) and ETH are exact too; tron and solana answer 503
// provider_unavailable with param destination.network and hold nothing; an amount the configured
// decimals cannot carry is 422 before any hold; test mode never touches the node; a node answering
// another chain id stops the worker with a message naming the network.
#include <gtest/gtest.h>

#include <unistd.h>
#include <cstdio>

#include <fstream>
#include <map>
#include <memory>
#include <thread>

#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/contracts.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/money/ledger.h"
#include "tests/support/anvil.h"
#include "tests/support/fault_proxy.h"
#include "tests/support/metrics.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

using namespace infra::evm;
constexpr long kReceiptTimeoutMs = 20000;

struct Token {
  Address contract;
  int decimals = 0;
};

// ethereum's caps are tight (2 gwei max fee, 1 gwei priority fee) and it replaces after 2 blocks:
// the nonce filler's network.
constexpr std::uint64_t kEthereumMaxFeeCapWei = 2000000000;

class EvmPayouts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    anvil_ = new Anvil(Anvil::Options{.chain_id = 31337});
    proxy_ = new FaultProxy(anvil_->port());  // optimism's node: its sends can be held back
    node_ = anvil_->node().release();
    deployer_ = Anvil::signer(kAnvilKey0).release();
    usdc_polygon_ = new Token(deploy("USD Coin", "USDC", 6));
    usdc_bsc_ = new Token(deploy("USD Coin", "USDC", 18));
    usdt_coarse_ = new Token(deploy("Tether", "USDT", 2));  // fewer decimals than the API's 6
    // One hot wallet per network: the networks share this one chain, and one account's nonces
    // cannot be allocated by two networks' counters.
    wallets_ = new std::map<std::string, HotWallet>();
    for (const auto* network : {"polygon", "bsc", "base", "arbitrum", "ethereum", "optimism"}) {
      auto key = crypto_key();
      auto signer = LocalKeySigner::from_bytes(key).value();
      anvil_->set_balance(signer->address(), *abi::to_base_units("100", 18));
      wallets_->emplace(network, HotWallet{key, std::move(signer)});
    }
    mint(*usdc_polygon_, "polygon", "1000000");
    mint(*usdc_bsc_, "bsc", "1000000");
    mint(*usdc_polygon_, "base", "1000");
    mint(*usdc_polygon_, "arbitrum", "1000");
    mint(*usdc_polygon_, "ethereum", "1000");
    mint(*usdc_polygon_, "optimism", "1000");
    networks_file_ = new std::string(write_networks_file(anvil_->chain_id()));

    stack_ = new TestStack({.workers = {"screening", "execution", "settlement"},
                            .env = {{"PAYRAIL_CHAIN_ADAPTER", "evm"},
                                    {"PAYRAIL_EVM_NETWORKS_FILE", *networks_file_},
                                    {"PAYRAIL_SETTLEMENT_DELAY_MS", "50"}}});
    create_hot_wallet("polygon");
    create_hot_wallet("bsc");
    create_hot_wallet("base");
    create_hot_wallet("arbitrum");
    create_hot_wallet("ethereum");
    create_hot_wallet("optimism");
    stack_->start(std::vector<std::string>{"execution", "settlement"});  // with the wallets
    org_ = new TestOrganization(stack_->create_organization());
    stack_->verify_business(*org_);
    const auto created = stack_->http().post(
        "/v1/api-keys", R"({"mode":"live"})",
        {{"Authorization", "Bearer " + org_->session}, {"Payrail-Organization", org_->id}});
    if (created.status != 201) throw std::runtime_error("live key: " + created.body);
    live_key_ = new std::string(created.json()["key"].GetString());
    fund_live("USDC", "1000");
    fund_live("ETH", "10");
  }
  static void TearDownTestSuite() {
    delete stack_;
    std::remove(networks_file_->c_str());
    delete networks_file_;
    delete live_key_;
    delete org_;
    delete wallets_;
    delete usdc_polygon_;
    delete usdc_bsc_;
    delete usdt_coarse_;
    delete deployer_;
    delete node_;
    delete proxy_;
    delete anvil_;
  }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  static std::string crypto_key() {
    for (;;) {  // a random scalar is a valid key but for a negligible few
      auto key = infra::crypto::random_bytes(32);
      if (LocalKeySigner::from_bytes(key).ok()) return key;
    }
  }
  static Token deploy(const char* name, const char* symbol, int decimals) {
    auto token =
        deploy_contract(*node_, *deployer_, token_creation_code(),
                        token_constructor_arguments(name, symbol, decimals), kReceiptTimeoutMs);
    if (!token.ok()) throw std::runtime_error("deploy: " + token.error().message);
    return {*token, decimals};
  }
  static const LocalKeySigner& wallet(const std::string& network) {
    return *wallets_->at(network).signer;
  }
  static void mint(const Token& token, const std::string& network, const std::string& amount) {
    Transaction call;
    call.to = token.contract;
    call.data =
        token_mint_call(wallet(network).address(), *abi::to_base_units(amount, token.decimals));
    auto receipt = send_and_wait(*node_, *deployer_, call, kReceiptTimeoutMs);
    if (!receipt.ok() || !receipt->succeeded) throw std::runtime_error("mint failed");
  }
  static std::string network_json(const std::string& name, std::uint64_t chain_id,
                                  const std::string& tokens, int confirmations = 1,
                                  int replace_after_blocks = 20, int funding_wait_max_s = 3600,
                                  const std::string& max_fee_cap_wei = "500000000000",
                                  const std::string& priority_fee_cap_wei = "50000000000",
                                  const std::string& rpc_url = "") {
    return "\"" + name + "\":{\"chain_id\":" + std::to_string(chain_id) + ",\"rpc_urls\":[\"" +
           (rpc_url.empty() ? anvil_->url() : rpc_url) +
           "\"],\"confirmations\":" + std::to_string(confirmations) +
           ",\"replace_after_blocks\":" + std::to_string(replace_after_blocks) +
           ",\"funding_wait_max_s\":" + std::to_string(funding_wait_max_s) +
           ",\"max_fee_per_gas_cap_wei\":\"" + max_fee_cap_wei +
           "\",\"max_priority_fee_per_gas_cap_wei\":\"" + priority_fee_cap_wei + "\",\"tokens\":{" +
           tokens + "}}";
  }
  static std::string token_json(const char* asset, const Token& token) {
    return "\"" + std::string(asset) + "\":{\"address\":\"" + token.contract.lowercase() +
           "\",\"decimals\":" + std::to_string(token.decimals) + "}";
  }
  static std::string write_networks_file(std::uint64_t chain_id) {
    char path[] = "/tmp/payrail-evm-networks-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp");
    ::close(fd);
    std::ofstream(path)
        << "{" +
               network_json(
                   "polygon", chain_id,
                   token_json("USDC", *usdc_polygon_) + "," + token_json("USDT", *usdt_coarse_)) +
               "," + network_json("bsc", chain_id, token_json("USDC", *usdc_bsc_)) + "," +
               network_json("base", chain_id, token_json("USDC", *usdc_polygon_), 3) + "," +
               network_json("arbitrum", chain_id, token_json("USDC", *usdc_polygon_), 1, 2, 3) +
               "," +
               network_json("ethereum", chain_id, token_json("USDC", *usdc_polygon_), 1, 2, 3600,
                            std::to_string(kEthereumMaxFeeCapWei), "1000000000") +
               "," +
               network_json("optimism", chain_id, token_json("USDC", *usdc_polygon_), 1, 20, 3600,
                            "500000000000", "50000000000",
                            "http://127.0.0.1:" + std::to_string(proxy_->port())) +
               "}";
    return path;
  }
  // With the CLI, importing the test's key from a file (the key never is an argument).
  static void create_hot_wallet(const std::string& network) {
    char path[] = "/tmp/payrail-evm-key-XXXXXX";
    const int fd = mkstemp(path);
    if (fd < 0) throw std::runtime_error("mkstemp");
    ::close(fd);
    std::ofstream(path) << infra::crypto::hex_encode(wallets_->at(network).key) << "\n";
    const auto [code, output] =
        stack_->cli({"evm-wallet-create", "--network", network, "--key-file", path});
    std::remove(path);
    if (code != 0 || output.find(wallet(network).address().checksummed()) == std::string::npos) {
      throw std::runtime_error("evm-wallet-create: " + output);
    }
  }
  static void fund_live(const std::string& asset, const std::string& amount) {
    infra::pg::Pool pool({.url = stack_->database().url(), .max_connections = 1});
    const auto funded = pool.transact([&](pqxx::work& tx) -> model::Status {
      infra::store::ledger::apply(tx, org_->id, model::Mode::live, asset,
                                  infra::store::ledger::Movement::sandbox_funding, std::nullopt,
                                  amount);
      return model::ok_status();
    });
    if (!funded.ok()) throw std::runtime_error(funded.error().message);
  }

  HttpResult create_live(const std::string& body) {
    static int count = 0;
    return create_payout(stack_->http(), *live_key_, "evm-" + std::to_string(++count), body);
  }
  // Creates a live payout and waits for it to finish; returns its final JSON's fields.
  // The Transfer logs of any token to `recipient`, read from the node.
  static std::size_t transfers_to(const std::string& recipient) {
    const auto logs =
        anvil_->call("eth_getLogs", R"([{"fromBlock":"0x0","toBlock":"latest","topics":[")" +
                                        to_hex(transfer_event_topic()) +
                                        R"(",null,"0x000000000000000000000000)" +
                                        parse_address(recipient)->lowercase().substr(2) + "\"]}]");
    EXPECT_TRUE(logs.IsArray());
    return logs.IsArray() ? logs.GetArray().Size() : 0;
  }
  // The wallet of `network` pays its next payout (`amount` USDC, `units` in base units) at the
  // nonce after `nonce`: nothing waits behind the transaction that had it.
  void expect_next_payout_takes_the_next_nonce(const std::string& network, const std::string& nonce,
                                               const std::string& amount,
                                               const std::string& units) {
    const auto recipient = random_evm_address();
    const auto [next_id, next_status] = pay(amount, "USDC", network, recipient);
    ASSERT_EQ(next_status, "completed");
    EXPECT_EQ(stack_->database().scalar("SELECT nonce FROM evm_transactions WHERE payout_id = '" +
                                        next_id + "'"),
              std::to_string(std::stoll(nonce) + 1));
    EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                  .value()
                  .to_decimal(),
              units);
  }
  std::pair<std::string, std::string> pay(const std::string& amount, const std::string& currency,
                                          const std::string& network, const std::string& address) {
    const auto created = create_live(payout_body(amount, currency, network, address));
    EXPECT_EQ(created.status, 201) << created.body;
    if (created.status != 201) return {};
    const std::string id = created.json()["id"].GetString();
    const auto status = wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"},
                                        std::chrono::seconds(60));
    return {id, status};
  }
  std::string payout_field(const std::string& id, const std::string& column) {
    return stack_->database().scalar("SELECT coalesce(" + column +
                                     ", '') FROM payouts WHERE id = '" + id + "'");
  }
  // Polls `sql` (one value) until it answers `expected`; returns the last answer.
  std::string wait_for_scalar(const std::string& sql, const std::string& expected,
                              std::chrono::seconds timeout = std::chrono::seconds(30)) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    std::string answer = stack_->database().scalar(sql);
    while (answer != expected && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      answer = stack_->database().scalar(sql);
    }
    return answer;
  }
  // Whether the node has a receipt for `hash` within `timeout`.
  static bool mined_within(const std::string& hash, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto receipt = node_->transaction_receipt(*hash_from_hex(hash));
      if (receipt.ok() && receipt->has_value()) return true;
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  std::string created_id(const HttpResult& created) {
    EXPECT_EQ(created.status, 201) << created.body;
    return created.status == 201 ? created.json()["id"].GetString() : "";
  }
  std::string live_balance(const std::string& asset) {
    return balance_of(stack_->database(), org_->id, "live", asset);
  }
  static std::uint64_t hot_wallet_nonce() {
    return node_->transaction_count(wallet("polygon").address(), kLatest).value();
  }

  static Anvil* anvil_;
  static FaultProxy* proxy_;
  static Node* node_;
  static LocalKeySigner* deployer_;
  struct HotWallet {
    std::string key;
    std::unique_ptr<LocalKeySigner> signer;
  };
  static std::map<std::string, HotWallet>* wallets_;
  static Token* usdc_polygon_;
  static Token* usdc_bsc_;
  static Token* usdt_coarse_;
  static std::string* networks_file_;
  static TestStack* stack_;
  static TestOrganization* org_;
  static std::string* live_key_;
};
Anvil* EvmPayouts::anvil_ = nullptr;
FaultProxy* EvmPayouts::proxy_ = nullptr;
Node* EvmPayouts::node_ = nullptr;
LocalKeySigner* EvmPayouts::deployer_ = nullptr;
std::map<std::string, EvmPayouts::HotWallet>* EvmPayouts::wallets_ = nullptr;
Token* EvmPayouts::usdc_polygon_ = nullptr;
Token* EvmPayouts::usdc_bsc_ = nullptr;
Token* EvmPayouts::usdt_coarse_ = nullptr;
std::string* EvmPayouts::networks_file_ = nullptr;
TestStack* EvmPayouts::stack_ = nullptr;
TestOrganization* EvmPayouts::org_ = nullptr;
std::string* EvmPayouts::live_key_ = nullptr;

TEST_F(EvmPayouts, LiveUsdcPayoutMovesExactlyItsAmountAndCompletesWithTheMinedHash) {
  const auto recipient = random_evm_address();
  const auto before = live_balance("USDC");
  const auto [id, status] = pay("12.345678", "USDC", "polygon", recipient);
  ASSERT_EQ(status, "completed");
  EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                .value()
                .to_decimal(),
            "12345678");
  const auto tx_hash = payout_field(id, "tx_hash");
  EXPECT_EQ(stack_->database().scalar("SELECT state || '/' || kind FROM evm_transactions WHERE "
                                      "payout_id = '" +
                                      id + "' AND hash = '" + tx_hash + "'"),
            "mined/transfer");
  const auto receipt = node_->transaction_receipt(*hash_from_hex(tx_hash)).value();
  ASSERT_TRUE(receipt.has_value());
  EXPECT_TRUE(receipt->succeeded);
  int transfers = 0;
  for (const auto& log : receipt->logs) {
    transfers += log.address == usdc_polygon_->contract && !log.topics.empty() &&
                 log.topics[0] == transfer_event_topic();
  }
  EXPECT_EQ(transfers, 1);
  EXPECT_EQ(event_count(stack_->database(), id, "payout.completed"), 1);
  const auto [code, read_back] = stack_->cli(
      {"evm-balance", "--network", "polygon", "--asset", "USDC", "--address", recipient});
  EXPECT_EQ(code, 0) << read_back;
  EXPECT_TRUE(read_back == "12.345678\n" || read_back.ends_with("\n12.345678\n")) << read_back;
  EXPECT_NE(before, live_balance("USDC"));
  EXPECT_EQ(live_balance("USDC").substr(live_balance("USDC").find('/')), "/0");  // nothing held
}

TEST_F(EvmPayouts, EighteenDecimalTokenAndEthAreExact) {
  const auto bsc_recipient = random_evm_address();
  const auto [bsc_id, bsc_status] = pay("1.5", "USDC", "bsc", bsc_recipient);
  ASSERT_EQ(bsc_status, "completed");
  EXPECT_EQ(node_->token_balance(usdc_bsc_->contract, *parse_address(bsc_recipient), kLatest)
                .value()
                .to_decimal(),
            "1500000000000000000");
  const auto eth_recipient = random_evm_address();
  const auto [eth_id, eth_status] = pay("0.25", "ETH", "polygon", eth_recipient);
  ASSERT_EQ(eth_status, "completed");
  EXPECT_EQ(node_->balance(*parse_address(eth_recipient), kLatest).value().to_decimal(),
            "250000000000000000");
}

TEST_F(EvmPayouts, TheCliListsTheHotWalletsAndRefusesASecond) {
  const auto [code, listed] = stack_->cli({"evm-wallets"});
  EXPECT_EQ(code, 0);
  EXPECT_NE(listed.find("arbitrum " + wallet("arbitrum").address().checksummed() + "\nbase " +
                        wallet("base").address().checksummed() + "\nbsc " +
                        wallet("bsc").address().checksummed() + "\nethereum " +
                        wallet("ethereum").address().checksummed() + "\noptimism " +
                        wallet("optimism").address().checksummed() + "\npolygon " +
                        wallet("polygon").address().checksummed() + "\n"),
            std::string::npos)
      << listed;
  const auto [again, refused] = stack_->cli({"evm-wallet-create", "--network", "polygon"});
  EXPECT_EQ(again, 1);
  EXPECT_NE(refused.find("polygon has a hot wallet already"), std::string::npos) << refused;
  const auto [tron, tron_refused] = stack_->cli({"evm-wallet-create", "--network", "tron"});
  EXPECT_EQ(tron, 1);
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM evm_wallets"), "6");
  // The key is kept sealed: its hex is nowhere in the table.
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM evm_wallets WHERE position('" +
                                      infra::crypto::hex_encode(wallets_->at("polygon").key) +
                                      "' IN encode(key_sealed, 'hex')) > 0"),
            "0");
}

TEST_F(EvmPayouts, TronAndSolanaAreProviderUnavailableBeforeAnyHold) {
  fund_live("USDT", "10");
  const auto usdc_before = live_balance("USDC");
  const auto usdt_before = live_balance("USDT");
  struct Case {
    std::string network, currency, address;
  };
  for (const auto& c : {Case{"tron", "USDT", "TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t"},
                        Case{"solana", "USDC", "EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v"}}) {
    const auto response = create_live(payout_body("1", c.currency, c.network, c.address));
    EXPECT_EQ(response.status, 503) << response.body;
    EXPECT_EQ(response.error_code(), "provider_unavailable");
    EXPECT_EQ(response.error_param(), "destination.network");
  }
  EXPECT_EQ(live_balance("USDC"), usdc_before);
  EXPECT_EQ(live_balance("USDT"), usdt_before);
}

// The funding check reads what the wallet holds on chain, without counting transfers not mined
// yet: with mining paused, two payouts of 1.5 USDT each pass it against a wallet of 2, both are
// sent, and the second reverts when mined. It fails, is refunded once, its nonce is consumed by
// the reverted transaction, and the next payout takes the next nonce (none stuck).
TEST_F(EvmPayouts, ARevertedTransferFailsRefundsOnceAndTheNextPayoutIsMined) {
  fund_live("USDT", "5");
  mint(*usdt_coarse_, "polygon", "2");
  const auto usdt_before = live_balance("USDT");
  anvil_->set_automine(false);
  const auto sent = [&](const std::string& id) {
    return wait_for_scalar(
        "SELECT count(*) FROM evm_transactions WHERE payout_id = '" + id + "' AND state = 'sent'",
        "1");
  };
  const auto first =
      created_id(create_live(payout_body("1.5", "USDT", "polygon", random_evm_address())));
  const bool first_sent = !first.empty() && sent(first) == "1";
  const auto second =
      created_id(create_live(payout_body("1.5", "USDT", "polygon", random_evm_address())));
  const bool second_sent = !second.empty() && sent(second) == "1";
  anvil_->mine(1);
  anvil_->set_automine(true);
  ASSERT_TRUE(first_sent && second_sent);
  EXPECT_EQ(wait_for_status(stack_->http(), *live_key_, first, {"completed", "failed"}),
            "completed");
  ASSERT_EQ(wait_for_status(stack_->http(), *live_key_, second, {"completed", "failed"}), "failed");
  EXPECT_EQ(payout_field(second, "failure_reason").rfind("transfer_reverted: ", 0), 0u)
      << payout_field(second, "failure_reason");
  // 1.5 paid, 1.5 refunded once.
  EXPECT_EQ(event_count(stack_->database(), second, "payout.failed"), 1);
  EXPECT_EQ(stack_->database().scalar("SELECT state FROM evm_transactions WHERE payout_id = '" +
                                      second + "'"),
            "reverted");
  const auto nonce = stack_->database().scalar(
      "SELECT nonce FROM evm_transactions WHERE payout_id = '" + second + "'");
  expect_next_payout_takes_the_next_nonce("polygon", nonce, "2", "2000000");  // none stuck
  const auto usdt_after = live_balance("USDT");  // "available/held": 1.5 paid, 1.5 given back
  EXPECT_EQ(usdt_after.substr(usdt_after.find('/')), "/0");
  EXPECT_NE(usdt_after, usdt_before);
}

TEST_F(EvmPayouts, AnAmountTheTokensDecimalsCannotCarryIsRefusedBeforeAnyHold) {
  const auto before = live_balance("USDC");
  fund_live("USDT", "1");
  const auto usdt_before = live_balance("USDT");
  const auto response = create_live(payout_body("1.005", "USDT", "polygon", random_evm_address()));
  EXPECT_EQ(response.status, 422) << response.body;
  EXPECT_EQ(response.error_param(), "amount");
  EXPECT_EQ(live_balance("USDT"), usdt_before);
  EXPECT_EQ(live_balance("USDC"), before);
}

// base needs 3 confirmations: the transfer is mined, undone by a reorg, sent again from its
// recorded bytes, mined again, and completes only once final again; one transfer.
TEST_F(EvmPayouts, AReorgUndoingTheTransferWaitsUntilItIsFinalAgainAndPaysOnce) {
  const auto recipient = random_evm_address();
  const auto id = created_id(create_live(payout_body("4", "USDC", "base", recipient)));
  ASSERT_FALSE(id.empty());
  const auto sent =
      "SELECT count(*) FROM evm_transactions WHERE payout_id = '" + id + "' AND state = 'sent'";
  ASSERT_EQ(wait_for_scalar(sent, "1"), "1");
  const auto hash =
      stack_->database().scalar("SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "'");
  ASSERT_TRUE(mined_within(hash, std::chrono::seconds(10)));
  EXPECT_EQ(payout_field(id, "status"), "processing");  // 1 confirmation of 3
  anvil_->reorg(1);
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(hash)).value().has_value());
  ASSERT_TRUE(mined_within(hash, std::chrono::seconds(30)));  // sent again by settlement
  EXPECT_EQ(payout_field(id, "status"), "processing");
  anvil_->mine(2);
  ASSERT_EQ(wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"}), "completed");
  EXPECT_EQ(payout_field(id, "tx_hash"), hash);
  EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                .value()
                .to_decimal(),
            "4000000");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.completed"), 1);
}

// arbitrum replaces after 2 blocks. Mining paused, the base fee raised above the transfer's max
// fee: blocks pass without it, settlement replaces it at its nonce with higher fees, and the
// replacement is mined; one transfer, both hashes kept.
TEST_F(EvmPayouts, ATransferNotMinedIsReplacedAtItsNonceAndPaysOnce) {
  anvil_->set_automine(false);
  const auto recipient = random_evm_address();
  const auto id = created_id(create_live(payout_body("6", "USDC", "arbitrum", recipient)));
  ASSERT_FALSE(id.empty());
  const auto rows =
      "SELECT count(*) || '/' || count(*) FILTER (WHERE state = 'sent') FROM "
      "evm_transactions WHERE payout_id = '" +
      id + "'";
  ASSERT_EQ(wait_for_scalar(rows, "1/1"), "1/1");
  const auto first =
      stack_->database().scalar("SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "'");
  const auto max_fee = U256::from_decimal(stack_->database().scalar(
      "SELECT max_fee_per_gas::text FROM evm_transactions WHERE payout_id = '" + id + "'"));
  ASSERT_TRUE(max_fee.has_value());
  anvil_->call("anvil_setNextBlockBaseFeePerGas",
               "[\"" + checked_multiply(*max_fee, U256(4))->to_quantity() + "\"]");
  anvil_->mine(3);  // the transfer's max fee is below each of these blocks' base fee
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(first)).value().has_value());
  ASSERT_EQ(wait_for_scalar(rows, "2/2"), "2/2");  // replaced, and the replacement sent
  const auto second = stack_->database().scalar(
      "SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "' ORDER BY id DESC LIMIT 1");
  EXPECT_EQ(
      stack_->database().scalar(
          "SELECT count(DISTINCT nonce) FROM evm_transactions WHERE payout_id = '" + id + "'"),
      "1");
  EXPECT_EQ(stack_->database().scalar(
                "SELECT bool_and(max_fee_per_gas > (SELECT max_fee_per_gas * 1.1 FROM "
                "evm_transactions WHERE hash = '" +
                first + "'))::text FROM evm_transactions WHERE hash = '" + second + "'"),
            "true");
  anvil_->mine(1);
  const auto status = wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"});
  anvil_->set_automine(true);
  ASSERT_EQ(status, "completed");
  EXPECT_EQ(payout_field(id, "tx_hash"), second);
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(first)).value().has_value());
  EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                .value()
                .to_decimal(),
            "6000000");
  EXPECT_EQ(stack_->database().scalar("SELECT string_agg(state, ',' ORDER BY id) FROM "
                                      "evm_transactions WHERE payout_id = '" +
                                      id + "'"),
            "sent,mined");
}

// optimism's node is reached through a proxy that holds back execution's first send: the transfer
// is signed and recorded with the fees read then, and the base fee rises above its max fee before
// any node sees it. The node refuses it at once ("max fee per gas less than block base fee"), so
// no node ever takes it; it is stale at once (optimism replaces after 20 blocks, and none pass),
// and settlement replaces it at its nonce with the node's current fees. One transfer, and the
// wallet's next payout is mined at the following nonce: the wallet is not stuck behind it.
TEST_F(EvmPayouts, ATransferTheNodeRefusesForAFeeBelowTheBaseFeeIsReplacedAndPaysOnce) {
  struct Resume {  // the node reachable and the base fee low, however this test ends
    ~Resume() {
      proxy_->clear_faults();
      anvil_->call("anvil_setNextBlockBaseFeePerGas", "[\"0x3b9aca00\"]");
    }
  } resume;
  proxy_->set_faults({.reset_requests_containing = "eth_sendRawTransaction"});
  const auto recipient = random_evm_address();
  const auto id = created_id(create_live(payout_body("5", "USDC", "optimism", recipient)));
  ASSERT_FALSE(id.empty());
  const auto rows =
      "SELECT string_agg(state, ',' ORDER BY id) FROM evm_transactions WHERE "
      "payout_id = '" +
      id + "'";
  ASSERT_EQ(wait_for_scalar(rows, "signed"), "signed");  // recorded, no node has it
  const auto column = [&](const std::string& name) {
    return stack_->database().scalar("SELECT " + name +
                                     " FROM evm_transactions WHERE payout_id = '" + id +
                                     "' ORDER BY id LIMIT 1");
  };
  const auto first = column("hash");
  const auto max_fee = U256::from_decimal(column("max_fee_per_gas::text"));
  ASSERT_TRUE(max_fee.has_value());
  anvil_->call("anvil_setNextBlockBaseFeePerGas",
               "[\"" + checked_multiply(*max_fee, U256(4))->to_quantity() + "\"]");
  anvil_->mine(1);  // the next block's base fee is 3.5 times the transfer's max fee
  const auto refused = node_->send_raw_transaction(*from_hex(column("raw")));
  ASSERT_FALSE(refused.ok()) << "the node took a transfer whose max fee is below the base fee";
  ASSERT_EQ(refused.error().rejection(), Rejection::fee_below_base_fee) << refused.error().message;
  proxy_->clear_faults();  // execution's send reaches the node, which refuses it
  ASSERT_EQ(wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"},
                            std::chrono::seconds(60)),
            "completed")
      << stack_->database().scalar(rows);
  EXPECT_EQ(stack_->database().scalar(rows), "signed,mined");  // the first never taken
  const auto second = stack_->database().scalar(
      "SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "' AND state = 'mined'");
  EXPECT_NE(second, first);
  EXPECT_EQ(payout_field(id, "tx_hash"), second);
  EXPECT_EQ(
      stack_->database().scalar(
          "SELECT count(DISTINCT nonce) FROM evm_transactions WHERE payout_id = '" + id + "'"),
      "1");
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(first)).value().has_value());
  EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                .value()
                .to_decimal(),
            "5000000");
  EXPECT_EQ(transfers_to(recipient), 1u);
  EXPECT_EQ(event_count(stack_->database(), id, "payout.completed"), 1);
  const auto nonce = column("nonce");
  expect_next_payout_takes_the_next_nonce("optimism", nonce, "1", "1000000");
}

// ethereum's transfer is signed at its max fee cap, then every block's base fee is above it and
// below one 10 % raise of it: the transfer can never be mined within the caps, nor replaced.
// Four blocks after a node took it, its nonce gets a zero-value self transfer (nonce_filler), which
// the node takes and mines; the payout fails, refunded once, with no Transfer, and the next
// payout from that wallet is mined at the following nonce (no gap).
TEST_F(EvmPayouts, ATransferTheCapsCannotGetMinedHasItsNonceFilledAndIsRefundedOnce) {
  const auto usdc_before = live_balance("USDC");
  const auto base_fee = [&](std::uint64_t wei) {
    anvil_->call("anvil_setNextBlockBaseFeePerGas", "[\"" + U256(wei).to_quantity() + "\"]");
  };
  const auto between_cap_and_raise = kEthereumMaxFeeCapWei + kEthereumMaxFeeCapWei / 20;
  struct Resume {  // mining as the other tests expect it, however this one ends
    ~Resume() {
      anvil_->call("anvil_setNextBlockBaseFeePerGas", "[\"0x3b9aca00\"]");
      anvil_->set_automine(true);
    }
  } resume;
  anvil_->set_automine(false);
  base_fee(1000000000);  // within the cap: the transfer is taken at the cap
  anvil_->mine(1);
  const auto recipient = random_evm_address();
  const auto id = created_id(create_live(payout_body("7", "USDC", "ethereum", recipient)));
  ASSERT_FALSE(id.empty());
  const auto rows =
      "SELECT string_agg(kind || ':' || state, ',' ORDER BY id) FROM "
      "evm_transactions WHERE payout_id = '" +
      id + "'";
  ASSERT_EQ(wait_for_scalar(rows, "transfer:sent"), "transfer:sent");
  const auto transfer =
      stack_->database().scalar("SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "'");
  ASSERT_EQ(
      stack_->database().scalar(
          "SELECT max_fee_per_gas::text FROM evm_transactions WHERE hash = '" + transfer + "'"),
      std::to_string(kEthereumMaxFeeCapWei));
  for (int block = 0; block < 5; ++block) {  // mined without it: its max fee is below the base fee
    base_fee(between_cap_and_raise);
    anvil_->mine(1);
  }
  base_fee(between_cap_and_raise);
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(transfer)).value().has_value());
  ASSERT_EQ(wait_for_scalar("SELECT count(*) FROM evm_transactions WHERE payout_id = '" + id +
                                "' AND kind = 'nonce_filler'",
                            "1"),
            "1");
  const auto filler = stack_->database().scalar(
      "SELECT hash FROM evm_transactions WHERE payout_id = '" + id + "' AND kind = 'nonce_filler'");
  EXPECT_EQ(stack_->database().scalar(
                "SELECT (f.nonce = t.nonce) || '/' || (f.max_fee_per_gas > "
                "t.max_fee_per_gas * 1.1) FROM evm_transactions f, evm_transactions t WHERE f.hash "
                "= '" +
                filler + "' AND t.hash = '" + transfer + "'"),
            "true/true");
  // The node takes the filler (settlement sends it again until then) in the transfer's place.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  auto known = node_->transaction_by_hash(*hash_from_hex(filler));
  while (!(known.ok() && known->has_value()) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    known = node_->transaction_by_hash(*hash_from_hex(filler));
  }
  ASSERT_TRUE(known.ok() && known->has_value());
  anvil_->mine(1);
  const auto status = wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"});
  base_fee(1000000000);
  anvil_->set_automine(true);
  ASSERT_EQ(status, "failed");
  EXPECT_EQ(payout_field(id, "failure_reason").rfind("transfer_unmineable: ", 0), 0u)
      << payout_field(id, "failure_reason");
  EXPECT_EQ(event_count(stack_->database(), id, "payout.failed"), 1);
  EXPECT_EQ(live_balance("USDC"), usdc_before);  // refunded once
  EXPECT_EQ(stack_->database().scalar(rows), "transfer:sent,nonce_filler:mined");
  EXPECT_FALSE(node_->transaction_receipt(*hash_from_hex(transfer)).value().has_value());
  EXPECT_EQ(transfers_to(recipient), 0u);
  const auto nonce =
      stack_->database().scalar("SELECT nonce FROM evm_transactions WHERE hash = '" + filler + "'");
  expect_next_payout_takes_the_next_nonce("ethereum", nonce, "1", "1000000");  // no gap
}

// base's wallet holds 1000 USDC, less what earlier tests paid: a payout of 999 is not signed
// (no nonce taken), waits, counted in the metric, and goes once the wallet is funded.
TEST_F(EvmPayouts, APayoutTheHotWalletCannotFundWaitsUnsignedAndGoesOnceFunded) {
  fund_live("USDC", "999");
  const auto recipient = random_evm_address();
  const auto nonce_before = node_->transaction_count(wallet("base").address(), kLatest).value();
  const auto id = created_id(create_live(payout_body("999", "USDC", "base", recipient)));
  ASSERT_FALSE(id.empty());
  const auto metrics_url = stack_->metrics_url("execution");
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  double awaiting = 0;
  while (awaiting < 1 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    awaiting =
        Scrape::from(metrics_url)
            .value("payrail_evm_payouts_awaiting_funds", {{"network", "base"}, {"asset", "USDC"}})
            .value_or(0);
  }
  EXPECT_EQ(awaiting, 1);
  EXPECT_GT(Scrape::from(metrics_url)
                .value("payrail_evm_hot_wallet_balance", {{"network", "base"}, {"asset", "USDC"}})
                .value_or(0),
            900);
  EXPECT_EQ(stack_->database().scalar(
                "SELECT count(*) FROM evm_nonce_allocations WHERE payout_id = '" + id + "'"),
            "0");
  EXPECT_EQ(node_->transaction_count(wallet("base").address(), kLatest).value(), nonce_before);
  mint(*usdc_polygon_, "base", "1000");
  ASSERT_EQ(wait_for_scalar("SELECT count(*) FROM evm_transactions WHERE payout_id = '" + id +
                                "' AND state = 'sent'",
                            "1"),
            "1");
  anvil_->mine(2);  // base wants 3 confirmations
  ASSERT_EQ(wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"},
                            std::chrono::seconds(60)),
            "completed");
  EXPECT_EQ(node_->token_balance(usdc_polygon_->contract, *parse_address(recipient), kLatest)
                .value()
                .to_decimal(),
            "999000000");
}

// arbitrum gives up after 3 s: a payout its wallet (994 USDC) cannot fund fails with its refund,
// no nonce taken.
TEST_F(EvmPayouts, APayoutUnfundedPastTheBoundFailsWithItsRefundAndNoNonce) {
  fund_live("USDC", "999");
  const auto before = live_balance("USDC");
  const auto id =
      created_id(create_live(payout_body("999", "USDC", "arbitrum", random_evm_address())));
  ASSERT_FALSE(id.empty());
  ASSERT_EQ(wait_for_status(stack_->http(), *live_key_, id, {"completed", "failed"},
                            std::chrono::seconds(60)),
            "failed");
  EXPECT_EQ(payout_field(id, "failure_reason").rfind("hot_wallet_unfunded: ", 0), 0u)
      << payout_field(id, "failure_reason");
  EXPECT_EQ(live_balance("USDC"), before);
  EXPECT_EQ(event_count(stack_->database(), id, "payout.failed"), 1);
  EXPECT_EQ(stack_->database().scalar(
                "SELECT count(*) FROM evm_nonce_allocations WHERE payout_id = '" + id + "'"),
            "0");
}

TEST_F(EvmPayouts, TestModeNeverTouchesTheNode) {
  const auto nonce_before = hot_wallet_nonce();
  const auto created = create_payout(stack_->http(), org_->test_key, "test-mode-evm",
                                     payout_body("3", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string id = created.json()["id"].GetString();
  ASSERT_EQ(wait_for_status(stack_->http(), org_->test_key, id, {"completed", "failed"}),
            "completed");
  EXPECT_EQ(payout_field(id, "tx_hash").substr(0, 11), "0xSIMULATED");
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM evm_transactions WHERE payout_id = '" +
                                      id + "'"),
            "0");
  EXPECT_EQ(hot_wallet_nonce(), nonce_before);
}

TEST_F(EvmPayouts, ANodeAnsweringAnotherChainIdStopsTheWorkerNamingTheNetwork) {
  const auto wrong_file = write_networks_file(anvil_->chain_id() + 1);
  auto& execution = stack_->process("execution");
  execution.set_env("PAYRAIL_EVM_NETWORKS_FILE", wrong_file);
  execution.stop();
  execution.start();
  EXPECT_TRUE(execution.wait_for_log("answers chain id 31337, not 31338", std::chrono::seconds(20)))
      << execution.log();
  // The first network of the file, by name.
  EXPECT_NE(execution.log().find("the node of arbitrum answers chain id"), std::string::npos);
  for (int i = 0; i < 100 && execution.running(); ++i) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  EXPECT_FALSE(execution.running());
  execution.set_env("PAYRAIL_EVM_NETWORKS_FILE", *networks_file_);
  stack_->start("execution");
  std::remove(wrong_file.c_str());
}

}  // namespace
}  // namespace payrail::testing
