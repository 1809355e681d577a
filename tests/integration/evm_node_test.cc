// The EVM pieces against a real node: anvil (tests/support/anvil.h), one for this file, on chain
// id 137 (polygon's, so nothing passes by the default 31337). Our signing is compared with
// anvil's live, our signed transactions are broadcast and mined under the hash we computed, the
// typed calls read real answers, the JSON-RPC client's failures are classified, and the
// project's token is deployed, funded and transferred with our own transactions.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <thread>

#include "infra/adapters/evm/abi.h"
#include "infra/adapters/evm/contracts.h"
#include "infra/adapters/evm/transaction.h"
#include "schemas/model/common/json.h"
#include "tests/support/anvil.h"

namespace payrail::testing {
namespace {

using namespace infra::evm;

constexpr std::uint64_t kChainId = 137;
constexpr long kReceiptTimeoutMs = 20000;
const U256 kOneGwei(1000000000);

Anvil& chain() {
  static Anvil anvil(Anvil::Options{.chain_id = kChainId});
  return anvil;
}

const LocalKeySigner& wallet() {
  static const auto signer = Anvil::signer(kAnvilKey0);
  return *signer;
}

const LocalKeySigner& other_wallet() {
  static const auto signer = Anvil::signer(kAnvilKey1);
  return *signer;
}

// A fresh address nobody has used: a recipient whose balance starts at zero.
Address fresh_address() {
  static int counter = 0;
  const Hash hash =
      keccak("recipient " + std::to_string(++counter) + " " +
             std::to_string(std::chrono::steady_clock::now().time_since_epoch().count()));
  return address_from_bytes(Bytes(hash.begin() + 12, hash.end())).value();
}

Fees generous_fees() {
  return Fees{kOneGwei, *checked_multiply(kOneGwei, U256(10))};
}

std::uint64_t pending_nonce(Node& node, const Signer& signer) {
  return node.transaction_count(signer.address(), kPending).value();
}

SignedTransaction signed_by(const Signer& signer, const Transaction& transaction) {
  auto signed_transaction = sign(transaction, signer);
  EXPECT_TRUE(signed_transaction.ok()) << signed_transaction.error().message;
  return std::move(signed_transaction).value();
}

// anvil's own signature of the same fields (dev account 0 is unlocked there).
std::string anvil_signs(const Transaction& transaction) {
  std::string request = "[{\"from\":\"" + wallet().address().lowercase() + "\"";
  if (transaction.to) request += ",\"to\":\"" + transaction.to->lowercase() + "\"";
  request += ",\"nonce\":\"" + block_tag(transaction.nonce) + "\",\"gas\":\"" +
             block_tag(transaction.gas_limit) + "\",\"maxFeePerGas\":\"" +
             transaction.fees.max_fee_per_gas.to_quantity() + "\",\"maxPriorityFeePerGas\":\"" +
             transaction.fees.max_priority_fee_per_gas.to_quantity() + "\",\"value\":\"" +
             transaction.value.to_quantity() + "\",\"data\":\"" + to_hex(transaction.data) +
             "\",\"chainId\":\"" + block_tag(transaction.chain_id) +
             "\",\"type\":\"0x2\",\"accessList\":[]}]";
  const auto raw = chain().call("eth_signTransaction", request);
  return raw.IsString() ? raw.GetString() : "";
}

// An ABI-encoded string returned by a call (name(), symbol()).
std::string returned_string(const Bytes& returned) {
  if (returned.size() < 64) return "";
  const auto length = U256::from_big_endian(returned.substr(32, 32))->to_uint64().value_or(0);
  return returned.substr(64, length);
}

Bytes call_token(Node& node, const Address& token, std::string_view signature) {
  return node.call(CallRequest{std::nullopt, token, U256(0), abi::selector(signature)}, kLatest)
      .value();
}

// --- Typed calls -----------------------------------------------------------------------------

TEST(EvmNode, AnswersChainIdBlocksBalancesAndFees) {
  auto node = chain().node();
  EXPECT_EQ(node->chain_id().value(), kChainId);
  const std::uint64_t head = node->block_number().value();

  const Address account = fresh_address();
  EXPECT_TRUE(node->balance(account, kLatest).value().is_zero());
  chain().set_balance(account, U256(123456789));
  EXPECT_EQ(node->balance(account, kLatest).value(), U256(123456789));
  EXPECT_EQ(node->transaction_count(account, kLatest).value(), 0u);

  const auto latest = node->block(kLatest).value();
  ASSERT_TRUE(latest);
  EXPECT_GE(latest->number, head);
  ASSERT_TRUE(latest->base_fee_per_gas);
  const auto by_number = node->block(block_tag(latest->number)).value();
  ASSERT_TRUE(by_number);
  EXPECT_EQ(by_number->hash, latest->hash);
  EXPECT_FALSE(node->block(block_tag(latest->number + 1000)).value());  // beyond the head

  const double percentiles[] = {25, 75};
  const auto history = node->fee_history(4, kLatest, percentiles).value();
  const std::size_t blocks = std::min<std::uint64_t>(4, latest->number + 1);
  EXPECT_EQ(history.base_fee_per_gas.size(), blocks + 1);  // and the next block's
  EXPECT_EQ(history.reward.size(), blocks);
  for (const auto& rewards : history.reward) EXPECT_EQ(rewards.size(), 2u);
  EXPECT_EQ(history.oldest_block, latest->number + 1 - blocks);
  EXPECT_FALSE(node->max_priority_fee_per_gas().value().is_zero());

  EXPECT_EQ(
      node->estimate_gas(CallRequest{wallet().address(), fresh_address(), U256(1), {}}).value(),
      kNativeTransferGas);
}

// --- Signing: ours against anvil's, live ------------------------------------------------------

TEST(EvmNode, SignsExactlyAsTheNodeDoes) {
  const Address recipient = fresh_address();
  const Address token = fresh_address();
  const std::vector<Transaction> cases = {
      native_transfer(kChainId, 0, generous_fees(), recipient, U256(1000000000000000000)),
      token_transfer(kChainId, 5, generous_fees(), 65000, token, recipient, U256(250750000)),
      self_transfer(kChainId, 77, generous_fees(), wallet().address()),
      native_transfer(kChainId, 0xfffffffffffffffeULL, generous_fees(), recipient, U256(1)),
      native_transfer(kChainId, 1,
                      Fees{U256(~std::uint64_t{0}), *U256::from_quantity("0x10000000000000001")},
                      recipient, U256(0)),
  };
  for (const auto& transaction : cases) {
    SCOPED_TRACE("nonce " + std::to_string(transaction.nonce));
    const auto ours = signed_by(wallet(), transaction);
    EXPECT_EQ(to_hex(ours.raw), anvil_signs(transaction));
  }
}

// --- Broadcast ---------------------------------------------------------------------------------

TEST(EvmNode, MinesOurSignedTransactionUnderTheHashWeComputed) {
  auto node = chain().node();
  const Address recipient = fresh_address();
  const std::uint64_t nonce = pending_nonce(*node, wallet());
  const auto transaction = signed_by(
      wallet(), native_transfer(kChainId, nonce, generous_fees(), recipient, U256(12345)));

  EXPECT_EQ(node->send_raw_transaction(transaction.raw).value(), transaction.hash);
  const auto receipt = wait_for_receipt(*node, transaction.hash, kReceiptTimeoutMs);
  ASSERT_TRUE(receipt.ok()) << receipt.error().message;
  EXPECT_TRUE(receipt->succeeded);
  EXPECT_EQ(receipt->transaction_hash, transaction.hash);
  EXPECT_EQ(receipt->gas_used, kNativeTransferGas);
  EXPECT_TRUE(receipt->logs.empty());
  const auto block = node->block(block_tag(receipt->block_number)).value();
  ASSERT_TRUE(block);
  EXPECT_EQ(block->hash, receipt->block_hash);

  EXPECT_EQ(node->balance(recipient, kLatest).value(), U256(12345));
  EXPECT_EQ(node->transaction_count(wallet().address(), kLatest).value(), nonce + 1);
  const auto info = node->transaction_by_hash(transaction.hash).value();
  ASSERT_TRUE(info);
  EXPECT_EQ(info->nonce, nonce);
  EXPECT_EQ(info->from, wallet().address());
  EXPECT_EQ(info->to, recipient);
  EXPECT_EQ(info->value, U256(12345));
  EXPECT_EQ(info->block_hash, receipt->block_hash);

  // The same bytes again, once mined: a permanent answer the sender recognises.
  const auto again = node->send_raw_transaction(transaction.raw);
  ASSERT_FALSE(again.ok());
  EXPECT_FALSE(again.error().retryable());
  EXPECT_EQ(again.error().rejection(), Rejection::nonce_too_low) << again.error().message;
  EXPECT_FALSE(node->transaction_receipt(keccak("never sent")).value());
  EXPECT_FALSE(node->transaction_by_hash(keccak("never sent")).value());
}

TEST(EvmNode, ASelfTransferConsumesTheNonceAndCostsOnlyGas) {
  auto node = chain().node();
  const std::uint64_t nonce = pending_nonce(*node, wallet());
  const U256 before = node->balance(wallet().address(), kLatest).value();
  const auto transaction =
      signed_by(wallet(), self_transfer(kChainId, nonce, generous_fees(), wallet().address()));
  ASSERT_TRUE(node->send_raw_transaction(transaction.raw).ok());
  const auto receipt = wait_for_receipt(*node, transaction.hash, kReceiptTimeoutMs).value();
  EXPECT_TRUE(receipt.succeeded);
  EXPECT_EQ(node->transaction_count(wallet().address(), kLatest).value(), nonce + 1);
  ASSERT_TRUE(receipt.effective_gas_price);
  const U256 gas_cost = *checked_multiply(U256(receipt.gas_used), *receipt.effective_gas_price);
  EXPECT_EQ(node->balance(wallet().address(), kLatest).value(),
            *checked_subtract(before, gas_cost));
}

// Mining paused: the transaction waits in the pool, the node recognises the same bytes, refuses
// a same-nonce replacement without higher fees and accepts one with them; one of the two is mined.
TEST(EvmNode, PausedMiningPoolRulesAndReplacement) {
  auto node = chain().node();
  chain().set_automine(false);
  const std::uint64_t nonce = pending_nonce(*node, wallet());
  const Address recipient = fresh_address();
  const auto first =
      signed_by(wallet(), native_transfer(kChainId, nonce, generous_fees(), recipient, U256(1)));
  ASSERT_TRUE(node->send_raw_transaction(first.raw).ok());
  EXPECT_FALSE(node->transaction_receipt(first.hash).value());
  const auto pending = node->transaction_by_hash(first.hash).value();
  ASSERT_TRUE(pending);
  EXPECT_FALSE(pending->block_number);
  EXPECT_EQ(node->transaction_count(wallet().address(), kPending).value(), nonce + 1);
  EXPECT_EQ(node->transaction_count(wallet().address(), kLatest).value(), nonce);

  const auto known = node->send_raw_transaction(first.raw);
  ASSERT_FALSE(known.ok());
  EXPECT_EQ(known.error().rejection(), Rejection::already_known) << known.error().message;

  const auto same_fees =
      signed_by(wallet(), native_transfer(kChainId, nonce, generous_fees(), recipient, U256(2)));
  const auto underpriced = node->send_raw_transaction(same_fees.raw);
  ASSERT_FALSE(underpriced.ok());
  EXPECT_EQ(underpriced.error().rejection(), Rejection::replacement_underpriced)
      << underpriced.error().message;

  const auto below_base_fee = signed_by(
      wallet(), native_transfer(kChainId, nonce + 1, Fees{U256(1), U256(1)}, recipient, U256(3)));
  const auto too_cheap = node->send_raw_transaction(below_base_fee.raw);
  ASSERT_FALSE(too_cheap.ok());
  EXPECT_EQ(too_cheap.error().rejection(), Rejection::fee_below_base_fee)
      << too_cheap.error().message;

  const Fees higher{*checked_multiply(kOneGwei, U256(2)), *checked_multiply(kOneGwei, U256(20))};
  const auto replacement =
      signed_by(wallet(), native_transfer(kChainId, nonce, higher, recipient, U256(1)));
  EXPECT_EQ(node->send_raw_transaction(replacement.raw).value(), replacement.hash);

  chain().mine();
  chain().set_automine(true);
  const auto mined = node->transaction_receipt(replacement.hash).value();
  ASSERT_TRUE(mined);
  EXPECT_TRUE(mined->succeeded);
  EXPECT_FALSE(node->transaction_receipt(first.hash).value());
  EXPECT_EQ(node->balance(recipient, kLatest).value(), U256(1));  // exactly one transfer
}

// A reorg takes the block away: the receipt disappears, the block at that height has another
// hash, the nonce is free again, and the same signed bytes are mined again under the same hash.
TEST(EvmNode, AReorgUndoesTheReceiptAndTheSameBytesMineAgain) {
  auto node = chain().node();
  const std::uint64_t nonce = pending_nonce(*node, wallet());
  const Address recipient = fresh_address();
  const auto transaction =
      signed_by(wallet(), native_transfer(kChainId, nonce, generous_fees(), recipient, U256(7)));
  ASSERT_TRUE(node->send_raw_transaction(transaction.raw).ok());
  const auto receipt = wait_for_receipt(*node, transaction.hash, kReceiptTimeoutMs).value();

  chain().reorg(1);
  EXPECT_FALSE(node->transaction_receipt(transaction.hash).value());
  const auto replaced = node->block(block_tag(receipt.block_number)).value();
  ASSERT_TRUE(replaced);
  EXPECT_NE(replaced->hash, receipt.block_hash);
  EXPECT_EQ(node->transaction_count(wallet().address(), kLatest).value(), nonce);
  EXPECT_TRUE(node->balance(recipient, kLatest).value().is_zero());

  EXPECT_EQ(node->send_raw_transaction(transaction.raw).value(), transaction.hash);
  const auto again = wait_for_receipt(*node, transaction.hash, kReceiptTimeoutMs).value();
  EXPECT_NE(again.block_hash, receipt.block_hash);
  EXPECT_EQ(node->balance(recipient, kLatest).value(), U256(7));
}

TEST(EvmNode, SnapshotAndRevertUndoATransaction) {
  auto node = chain().node();
  const std::string snapshot = chain().snapshot();
  ASSERT_FALSE(snapshot.empty());
  const std::uint64_t nonce = pending_nonce(*node, wallet());
  const Address recipient = fresh_address();
  const auto transaction =
      signed_by(wallet(), native_transfer(kChainId, nonce, generous_fees(), recipient, U256(9)));
  ASSERT_TRUE(node->send_raw_transaction(transaction.raw).ok());
  ASSERT_TRUE(wait_for_receipt(*node, transaction.hash, kReceiptTimeoutMs).ok());
  ASSERT_TRUE(chain().revert(snapshot));
  EXPECT_FALSE(node->transaction_receipt(transaction.hash).value());
  EXPECT_TRUE(node->balance(recipient, kLatest).value().is_zero());
  EXPECT_EQ(node->transaction_count(wallet().address(), kLatest).value(), nonce);
}

TEST(EvmNode, IntervalMiningMakesBlocksWithoutTransactions) {
  auto node = chain().node();
  const std::uint64_t head = node->block_number().value();
  chain().set_interval_mining(1);
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(15);
  while (node->block_number().value() <= head && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  chain().set_interval_mining(0);
  chain().set_automine(true);
  EXPECT_GT(node->block_number().value(), head);
}

// --- The JSON-RPC client's failures ------------------------------------------------------------

// An HTTP server on the loopback that answers every request with `response`, or never answers
// when it is empty.
class CannedServer {
 public:
  explicit CannedServer(std::string response) : response_(std::move(response)) {
    port_ = free_port();
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(port_));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    const int yes = 1;
    setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
        listen(listener_, 8) != 0) {
      throw std::runtime_error("cannot listen");
    }
    thread_ = std::thread([this] { serve(); });
  }
  ~CannedServer() {
    stopping_ = true;
    thread_.join();
    close(listener_);
  }
  std::string url(const std::string& path = "/") const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  void serve() {
    std::vector<int> held;  // connections that never get an answer
    while (!stopping_) {
      pollfd ready{listener_, POLLIN, 0};
      if (poll(&ready, 1, 50) <= 0) continue;
      const int connection = accept(listener_, nullptr, nullptr);
      if (connection < 0) continue;
      if (response_.empty()) {
        held.push_back(connection);
        continue;
      }
      read_request(connection);
      (void)!write(connection, response_.data(), response_.size());
      close(connection);
    }
    for (const int connection : held) close(connection);
  }
  static void read_request(int connection) {
    std::string request;
    char buffer[4096];
    while (true) {
      pollfd readable{connection, POLLIN, 0};
      if (poll(&readable, 1, 2000) <= 0) return;
      const auto got = read(connection, buffer, sizeof buffer);
      if (got <= 0) return;
      request.append(buffer, static_cast<std::size_t>(got));
      const auto end = request.find("\r\n\r\n");
      if (end == std::string::npos) continue;
      const auto length_at = request.find("Content-Length: ");
      const std::size_t length =
          length_at == std::string::npos ? 0 : std::stoul(request.substr(length_at + 16));
      if (request.size() >= end + 4 + length) return;
    }
  }

  std::string response_;
  int port_ = 0;
  int listener_ = -1;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

std::string http_response(const std::string& status, const std::string& body,
                          const std::string& extra_headers = "") {
  return "HTTP/1.1 " + status +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\nConnection: close\r\n" + extra_headers + "\r\n" + body;
}

std::unique_ptr<JsonRpcClient> client_of(std::vector<std::string> urls, RpcOptions options = {}) {
  auto client = JsonRpcClient::create(std::move(urls), options);
  EXPECT_TRUE(client.ok());
  return std::move(client).value();
}

// A loopback URL where nothing listens, with a key in its path as providers' URLs have.
std::string dead_url() {
  return "http://127.0.0.1:" + std::to_string(free_port()) + "/v3/SECRETKEY123";
}

TEST(EvmRpc, TriesTheNextUrlWhenOneIsDown) {
  Node node(client_of({dead_url(), chain().url()}));
  EXPECT_EQ(node.chain_id().value(), kChainId);
  EXPECT_EQ(node.chain_id().value(), kChainId);
}

TEST(EvmRpc, EveryUrlDownIsARetryableTransportFailureThatNamesNoUrl) {
  Node node(client_of({dead_url(), dead_url()}));
  const auto answer = node.chain_id();
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().failure, RpcFailure::transport);
  EXPECT_TRUE(answer.error().retryable());
  EXPECT_EQ(answer.error().message,
            "every endpoint failed; the last: endpoint 2 of 2 (127.0.0.1): could not connect");
  EXPECT_EQ(answer.error().message.find("SECRETKEY"), std::string::npos);
}

TEST(EvmRpc, ANodesErrorObjectIsPermanentWithItsCodeAndMessage) {
  auto client = client_of({chain().url()});
  const auto answer = client->call("eth_getTransactionCount", R"(["0x12", "latest"])");
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().failure, RpcFailure::rpc_error);
  EXPECT_FALSE(answer.error().retryable());
  EXPECT_EQ(answer.error().code, -32602);
  EXPECT_FALSE(answer.error().message.empty());
  // A malformed transaction: the node's judgement, permanent, not a rejection we act on.
  Node node(client_of({chain().url()}));
  const auto garbage = node.send_raw_transaction(Bytes(1, '\0'));
  ASSERT_FALSE(garbage.ok());
  EXPECT_FALSE(garbage.error().retryable());
  EXPECT_EQ(garbage.error().rejection(), Rejection::none);
}

TEST(EvmRpc, AResponseBeyondTheBoundIsRefused) {
  Node node(client_of({chain().url()}, RpcOptions{.response_bytes_max = 200}));
  const auto block = node.block(kLatest);  // a header is well over 200 bytes
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.error().failure, RpcFailure::response_too_large);
  EXPECT_TRUE(block.error().retryable());
  EXPECT_TRUE(node.chain_id().ok());  // a small answer still fits
}

TEST(EvmRpc, ANodeThatNeverAnswersTimesOut) {
  CannedServer silent("");
  Node node(client_of({silent.url()}, RpcOptions{.connect_timeout_ms = 1000, .timeout_ms = 300}));
  const auto answer = node.chain_id();
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().failure, RpcFailure::timeout);
  EXPECT_TRUE(answer.error().retryable());
}

TEST(EvmRpc, RedirectsAreNotFollowed) {
  CannedServer redirect(http_response("302 Found", "", "Location: " + chain().url() + "\r\n"));
  Node node(client_of({redirect.url()}));
  const auto answer = node.chain_id();
  ASSERT_FALSE(answer.ok());
  EXPECT_EQ(answer.error().failure, RpcFailure::http_status);
  EXPECT_EQ(answer.error().code, 302);
  EXPECT_TRUE(answer.error().retryable());
}

TEST(EvmRpc, HttpErrorsAreRetryableUnlessTheyCarryAJsonRpcError) {
  CannedServer unavailable(http_response("503 Service Unavailable", "upstream down"));
  const auto down = Node(client_of({unavailable.url()})).chain_id();
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().failure, RpcFailure::http_status);
  EXPECT_EQ(down.error().code, 503);
  EXPECT_TRUE(down.error().retryable());

  CannedServer judged(http_response(
      "500 Internal Server Error",
      R"({"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"nonce too low","data":"0x01"}})"));
  const auto rejected = Node(client_of({judged.url()})).send_raw_transaction(Bytes(1, '\x02'));
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().failure, RpcFailure::rpc_error);
  EXPECT_EQ(rejected.error().code, -32000);
  EXPECT_EQ(rejected.error().data, "\"0x01\"");
  EXPECT_EQ(rejected.error().rejection(), Rejection::nonce_too_low);
}

TEST(EvmRpc, AnAnswerThatIsNotJsonRpcIsMalformedAndRetryable) {
  CannedServer html(http_response("200 OK", "<html>captive portal</html>"));
  const auto portal = Node(client_of({html.url()})).chain_id();
  ASSERT_FALSE(portal.ok());
  EXPECT_EQ(portal.error().failure, RpcFailure::malformed_response);
  EXPECT_TRUE(portal.error().retryable());

  CannedServer other_id(
      http_response("200 OK", R"({"jsonrpc":"2.0","id":999999,"result":"0x89"})"));
  const auto mismatched = Node(client_of({other_id.url()})).chain_id();
  ASSERT_FALSE(mismatched.ok());
  EXPECT_EQ(mismatched.error().failure, RpcFailure::malformed_response);

  CannedServer not_a_quantity(
      http_response("200 OK", R"({"jsonrpc":"2.0","id":1,"result":"137"})"));
  const auto decimal = Node(client_of({not_a_quantity.url()})).chain_id();
  ASSERT_FALSE(decimal.ok());
  EXPECT_EQ(decimal.error().failure, RpcFailure::malformed_response);
}

// A node that is down answers nothing (retryable), and the same client reaches it once it is
// back. An anvil of its own: a restarted anvil starts a new chain.
TEST(EvmRpc, ANodeThatIsDownIsRetryableAndReachedAgainWhenBack) {
  Anvil restarted(Anvil::Options{.chain_id = 56});
  auto node = restarted.node();
  EXPECT_EQ(node->chain_id().value(), 56u);
  restarted.stop();
  const auto down = node->block_number();
  ASSERT_FALSE(down.ok());
  EXPECT_EQ(down.error().failure, RpcFailure::transport);
  EXPECT_TRUE(down.error().retryable());
  restarted.start();
  EXPECT_EQ(node->chain_id().value(), 56u);
}

TEST(EvmRpc, RefusesUrlsThatAreNotHttpWithoutRepeatingThem) {
  const auto refused = JsonRpcClient::create({chain().url(), "ftp://node.example/KEY42"});
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message, "JSON-RPC URL 2 is not an http:// or https:// URL");
  EXPECT_FALSE(JsonRpcClient::create({}).ok());
}

// --- The token ---------------------------------------------------------------------------------

struct DeployedToken {
  Address address;
  int decimals;
};

DeployedToken deploy_token(Node& node, const char* name, const char* symbol, int decimals) {
  auto token =
      deploy_contract(node, wallet(), token_creation_code(),
                      token_constructor_arguments(name, symbol, decimals), kReceiptTimeoutMs);
  EXPECT_TRUE(token.ok()) << token.error().message;
  return {token.value(), decimals};
}

Receipt send(Node& node, const Signer& signer, const Transaction& transaction) {
  auto receipt = send_and_wait(node, signer, transaction, kReceiptTimeoutMs);
  EXPECT_TRUE(receipt.ok()) << receipt.error().message;
  return std::move(receipt).value();
}

Transaction call_of(const Address& contract, Bytes data, std::uint64_t gas_limit = 0) {
  Transaction transaction;
  transaction.to = contract;
  transaction.data = std::move(data);
  transaction.gas_limit = gas_limit;
  return transaction;
}

Hash topic_of(const Address& address) {
  return U256::from_big_endian(address.raw())->to_word();
}

// Deploy, mint to the hot wallet, transfer with our own type-2 transaction: the recipient gets
// exactly the amount, in one Transfer log. For 6 decimals (USDC, USDT) and 18 (bsc's).
TEST(EvmToken, DeploysMintsAndTransfersExactAmounts) {
  auto node = chain().node();
  for (const auto& [symbol, decimals, amount] :
       {std::tuple{"USDC", 6, "250.75"}, std::tuple{"USDT", 18, "1.500000000000000001"}}) {
    SCOPED_TRACE(symbol);
    const auto token = deploy_token(*node, symbol, symbol, decimals);
    EXPECT_EQ(returned_string(call_token(*node, token.address, "symbol()")), symbol);
    EXPECT_EQ(abi::decode_word(call_token(*node, token.address, "decimals()")).value(),
              U256(static_cast<std::uint64_t>(decimals)));

    const U256 funding = abi::to_base_units("1000", decimals).value();
    EXPECT_TRUE(
        send(*node, wallet(), call_of(token.address, token_mint_call(wallet().address(), funding)))
            .succeeded);
    EXPECT_EQ(node->token_balance(token.address, wallet().address(), kLatest).value(), funding);

    const Address recipient = fresh_address();
    const U256 units = abi::to_base_units(amount, decimals).value();
    const Transaction transfer =
        token_transfer(kChainId, 0, {}, 0, token.address, recipient, units);
    const auto receipt = send(*node, wallet(), transfer);
    EXPECT_TRUE(receipt.succeeded);
    ASSERT_EQ(receipt.logs.size(), 1u);
    const auto& log = receipt.logs.front();
    EXPECT_EQ(log.address, token.address);
    ASSERT_EQ(log.topics.size(), 3u);
    EXPECT_EQ(log.topics[0], transfer_event_topic());
    EXPECT_EQ(log.topics[1], topic_of(wallet().address()));
    EXPECT_EQ(log.topics[2], topic_of(recipient));
    EXPECT_EQ(abi::decode_word(log.data).value(), units);

    EXPECT_EQ(node->token_balance(token.address, recipient, kLatest).value(), units);
    EXPECT_EQ(abi::from_base_units(node->token_balance(token.address, recipient, kLatest).value(),
                                   decimals),
              abi::from_base_units(units, decimals));
    EXPECT_EQ(node->token_balance(token.address, wallet().address(), kLatest).value(),
              *checked_subtract(funding, units));
  }
}

// A hot wallet without tokens: the transfer is mined and reverted (status 0, no log, nothing
// moved), its nonce is consumed, and the wallet's next transaction is mined.
TEST(EvmToken, ATransferBeyondTheBalanceIsMinedAndReverted) {
  auto node = chain().node();
  const auto token = deploy_token(*node, "USD Coin", "USDC", 6);
  const Address recipient = fresh_address();
  const std::uint64_t nonce = pending_nonce(*node, other_wallet());
  const auto receipt = send(*node, other_wallet(),
                            call_of(token.address, abi::transfer_call(recipient, U256(1000000)),
                                    100000));  // a fixed limit: the estimate itself reverts
  EXPECT_FALSE(receipt.succeeded);
  EXPECT_TRUE(receipt.logs.empty());
  EXPECT_TRUE(node->token_balance(token.address, recipient, kLatest).value().is_zero());
  EXPECT_EQ(node->transaction_count(other_wallet().address(), kLatest).value(), nonce + 1);

  const auto estimate = node->estimate_gas(CallRequest{
      other_wallet().address(), token.address, U256(0), abi::transfer_call(recipient, U256(1))});
  ASSERT_FALSE(estimate.ok());
  EXPECT_FALSE(estimate.error().retryable());

  const auto next =
      send(*node, other_wallet(), self_transfer(kChainId, 0, {}, other_wallet().address()));
  EXPECT_TRUE(next.succeeded);
  EXPECT_EQ(node->transaction_count(other_wallet().address(), kLatest).value(), nonce + 2);
}

TEST(EvmToken, OnlyTheDeployerMints) {
  auto node = chain().node();
  const auto token = deploy_token(*node, "Tether USD", "USDT", 6);
  const auto receipt =
      send(*node, other_wallet(),
           call_of(token.address, token_mint_call(other_wallet().address(), U256(5)), 100000));
  EXPECT_FALSE(receipt.succeeded);
  EXPECT_TRUE(
      node->token_balance(token.address, other_wallet().address(), kLatest).value().is_zero());
}

}  // namespace
}  // namespace payrail::testing
