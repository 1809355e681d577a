// The store's half of "exactly once on chain" (infra/store/payouts/evm_transactions.h) against a
// real database: nonces allocated by concurrent transactions are contiguous, each once, each to
// one payout; a nonce allocated out of turn, a payout given a second nonce and two transactions
// of one nonce mined stop the process; the signed bytes and every replacement are kept in order;
// a wallet's key is kept sealed, once per network.
#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <thread>
#include <type_traits>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/store/payouts/evm_transactions.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace evm = infra::store::evm_transactions;

constexpr const char* kOrg = "org_evm_transactions";
constexpr const char* kSender = "0x00000000000000000000000000000000000000aa";

// Runs `work` in a transaction of its own connection and commits it.
template <class Work>
auto committed(const std::string& url, Work&& work) {
  pqxx::connection connection(url);
  pqxx::work tx(connection);
  if constexpr (std::is_void_v<decltype(work(tx))>) {
    work(tx);
    tx.commit();
  } else {
    auto result = work(tx);
    tx.commit();
    return result;
  }
}

class EvmTransactions : public DatabaseSuite<1> {
 protected:
  static void SetUpTestSuite() {
    DatabaseSuite::SetUpTestSuite();
    database_->add_organization(kOrg);
  }

  static std::string new_payout(const std::string& network = "polygon",
                                const std::string& mode = "live") {
    static std::atomic<int> count = 0;
    const auto id = "po_evm_" + std::to_string(++count);
    database_->scalar(
        "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
        "amount_usd, event_sequence) VALUES ('" +
        id + "', '" + kOrg + "', '" + mode + "', 'processing', 10, 'USDC', '" + network +
        "', "
        "'0x0000000000000000000000000000000000000001', 10, 1) RETURNING id");
    return id;
  }

  // A signed transaction as the adapter returns one; the bytes only need the table's shape here.
  static model::SignedTransfer signed_at(const std::string& network, std::uint64_t nonce) {
    model::SignedTransfer signed_transfer;
    signed_transfer.network = network;
    signed_transfer.sender = kSender;
    signed_transfer.nonce = nonce;
    signed_transfer.raw = "0x02" + infra::crypto::hex_encode(infra::crypto::random_bytes(40));
    signed_transfer.hash = "0x" + infra::crypto::hex_encode(infra::crypto::random_bytes(32));
    signed_transfer.max_fee_per_gas = "2000000000";
    signed_transfer.max_priority_fee_per_gas = "1000000000";
    return signed_transfer;
  }

  // Allocates the sender's next nonce to `payout_id` with one signed transaction.
  static model::SignedTransfer allocate(const std::string& network, const std::string& payout_id) {
    return committed(database_->url(), [&](pqxx::work& tx) {
      const auto nonce = evm::lock_next_nonce(tx, network, kSender);
      EXPECT_TRUE(nonce.has_value());
      auto signed_transfer = signed_at(network, nonce.value_or(0));
      evm::record_first(tx, payout_id, signed_transfer);
      return signed_transfer;
    });
  }

  static void seed(const std::string& network, std::uint64_t next_nonce) {
    committed(database_->url(),
              [&](pqxx::work& tx) { evm::seed_nonce(tx, network, kSender, next_nonce); });
  }
};

TEST_F(EvmTransactions, ConcurrentAllocationsAreContiguousOncePerPayout) {
  seed("polygon", 7);
  constexpr int kThreads = 4;
  constexpr int kPerThread = 25;
  std::vector<std::string> payout_ids;
  for (int i = 0; i < kThreads * kPerThread; ++i) payout_ids.push_back(new_payout());
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kPerThread; ++i)
        (void)allocate("polygon", payout_ids[t * kPerThread + i]);
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(database_->scalar("SELECT count(DISTINCT nonce) || '/' || min(nonce) || '/' || "
                              "max(nonce) || '/' || count(DISTINCT payout_id) FROM "
                              "evm_nonce_allocations WHERE network = 'polygon'"),
            "100/7/106/100");
  EXPECT_EQ(database_->scalar("SELECT next_nonce FROM evm_nonces WHERE network = 'polygon'"),
            "107");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM evm_transactions WHERE network = 'polygon' "
                              "AND state = 'signed' AND kind = 'transfer'"),
            "100");
}

// An execution batch locks, before its messages, the next nonces its payouts may take: both of a
// batch of optimism and bsc payouts (another transaction finds them taken), none for a payout
// that has its nonce or for a test-mode payout, until the batch commits.
TEST_F(EvmTransactions, ABatchLocksTheNoncesItMayTakeUpFront) {
  for (const auto* network : {"optimism", "bsc", "ethereum", "base"}) seed(network, 0);
  const auto on_optimism = new_payout("optimism");
  const auto on_bsc = new_payout("bsc");
  const auto on_ethereum = new_payout("ethereum");
  (void)allocate("ethereum", on_ethereum);
  const auto in_test_mode = new_payout("base", "test");
  const auto taken = [&](const std::string& network) {
    try {
      committed(database_->url(), [&](pqxx::work& tx) {
        tx.exec("SELECT 1 FROM evm_nonces WHERE network = '" + network + "' FOR UPDATE NOWAIT");
      });
      return false;
    } catch (const pqxx::sql_error& error) {
      return error.sqlstate() == "55P03";  // lock_not_available
    }
  };
  pqxx::connection connection(database_->url());
  pqxx::work batch(connection);
  evm::lock_nonces_of(batch, {on_bsc, on_ethereum, on_optimism, in_test_mode});
  EXPECT_TRUE(taken("optimism"));
  EXPECT_TRUE(taken("bsc"));
  EXPECT_FALSE(taken("ethereum"));
  EXPECT_FALSE(taken("base"));
  batch.commit();
  EXPECT_FALSE(taken("optimism"));
  EXPECT_FALSE(taken("bsc"));
}

TEST_F(EvmTransactions, SeedingNeverMovesTheNextNonceBack) {
  seed("base", 3);
  seed("base", 1);
  EXPECT_EQ(database_->scalar("SELECT next_nonce FROM evm_nonces WHERE network = 'base'"), "3");
  seed("base", 9);
  EXPECT_EQ(database_->scalar("SELECT next_nonce FROM evm_nonces WHERE network = 'base'"), "9");
  committed(database_->url(), [&](pqxx::work& tx) {
    EXPECT_FALSE(evm::lock_next_nonce(tx, "arbitrum", kSender).has_value());  // never seeded
  });
}

TEST_F(EvmTransactions, ReplacementsAreKeptInOrderAndSentOnce) {
  seed("optimism", 0);
  const auto payout_id = new_payout();
  const auto first = allocate("optimism", payout_id);
  auto replacement = signed_at("optimism", *first.nonce);
  replacement.max_fee_per_gas = "2200000000";
  committed(database_->url(), [&](pqxx::work& tx) {
    evm::record_replacement(tx, payout_id, replacement);
    evm::mark_sent(tx, replacement.hash, 42);
    evm::mark_sent(tx, replacement.hash, 50);  // the first send's head is kept
  });
  const auto recorded =
      committed(database_->url(), [&](pqxx::work& tx) { return evm::of_payout(tx, payout_id); });
  ASSERT_EQ(recorded.size(), 2u);
  EXPECT_EQ(recorded[0].signed_transfer.hash, first.hash);
  EXPECT_EQ(recorded[0].signed_transfer.raw, first.raw);
  EXPECT_EQ(recorded[1].signed_transfer.hash, replacement.hash);
  EXPECT_EQ(recorded[1].signed_transfer.max_fee_per_gas, "2200000000");
  EXPECT_EQ(recorded[1].signed_transfer.nonce, first.nonce);
  EXPECT_EQ(recorded[1].state, "sent");
  EXPECT_EQ(recorded[1].signed_transfer.sent_block, 42u);
  EXPECT_EQ(recorded[0].state, "signed");
  committed(database_->url(), [&](pqxx::work& tx) {
    evm::mark_mined(tx, replacement.hash, true, 12, "0x" + std::string(64, 'b'));
    evm::mark_mined(tx, replacement.hash, true, 13, "0x" + std::string(64, 'c'));  // a reorg
  });
  EXPECT_EQ(database_->scalar("SELECT state || '/' || block_number FROM evm_transactions WHERE "
                              "hash = '" +
                              replacement.hash + "'"),
            "mined/13");
}

// A transaction a node refused for a fee below the base fee: no node has it, so it stays signed,
// and its wait (towards a replacement, or a filler when the caps forbid one) starts at the first
// refusal's head.
TEST_F(EvmTransactions, ARefusalBelowTheBaseFeeKeepsItSignedAndStartsItsWait) {
  seed("optimism", 0);
  const auto payout_id = new_payout();
  const auto first = allocate("optimism", payout_id);
  committed(database_->url(), [&](pqxx::work& tx) {
    evm::mark_refused_below_base_fee(tx, first.hash, 42);
    evm::mark_refused_below_base_fee(tx, first.hash, 50);  // the first refusal's head is kept
  });
  const auto recorded =
      committed(database_->url(), [&](pqxx::work& tx) { return evm::of_payout(tx, payout_id); });
  ASSERT_EQ(recorded.size(), 1u);
  EXPECT_EQ(recorded[0].state, "signed");
  EXPECT_EQ(recorded[0].signed_transfer.sent_block, 42u);
  EXPECT_EQ(database_->scalar("SELECT (broadcast_at IS NULL)::text FROM evm_transactions WHERE "
                              "hash = '" +
                              first.hash + "'"),
            "true");
}

TEST_F(EvmTransactions, WalletsAreKeptSealedOncePerNetwork) {
  const std::string sealed = "\x01\x02sealed\x00bytes";
  committed(database_->url(), [&](pqxx::work& tx) {
    EXPECT_TRUE(evm::create_wallet(tx, {"bsc", kSender, sealed}));
    EXPECT_FALSE(evm::create_wallet(tx, {"bsc", kSender, "other"}));
  });
  const auto wallets =
      committed(database_->url(), [&](pqxx::work& tx) { return evm::wallets(tx); });
  ASSERT_EQ(wallets.size(), 1u);
  EXPECT_EQ(wallets[0].network, "bsc");
  EXPECT_EQ(wallets[0].address, kSender);
  EXPECT_EQ(wallets[0].key_sealed, sealed);
}

// Each death runs in a child with a connection of its own.
void in_own_transaction(const std::string& url, const std::function<void(pqxx::work&)>& work) {
  committed(url, work);
}

TEST_F(EvmTransactions, ANonceOutOfTurnOrTwiceStopsTheProcess) {
  GTEST_FLAG_SET(death_test_style, "fast");
  seed("ethereum", 4);
  const auto payout_id = new_payout();
  const auto first = allocate("ethereum", payout_id);  // nonce 4
  const auto url = database_->url();
  EXPECT_DEATH(in_own_transaction(url,
                                  [&](pqxx::work& tx) {
                                    evm::record_first(tx, new_payout(), signed_at("ethereum", 4));
                                  }),
               "a nonce is allocated in turn");
  EXPECT_DEATH(
      in_own_transaction(
          url, [&](pqxx::work& tx) { evm::record_first(tx, payout_id, signed_at("ethereum", 5)); }),
      "a nonce is allocated once, to one payout");
  auto replacement = signed_at("ethereum", *first.nonce);
  committed(database_->url(), [&](pqxx::work& tx) {
    evm::record_replacement(tx, payout_id, replacement);
    evm::mark_mined(tx, first.hash, true, 20, "0x" + std::string(64, 'd'));
  });
  EXPECT_DEATH(in_own_transaction(url,
                                  [&](pqxx::work& tx) {
                                    evm::mark_mined(tx, replacement.hash, true, 21,
                                                    "0x" + std::string(64, 'e'));
                                  }),
               "one transaction of a nonce is mined");
  EXPECT_EQ(database_->scalar("SELECT next_nonce FROM evm_nonces WHERE network = 'ethereum'"), "5");
}

}  // namespace
}  // namespace payrail::testing
