// Grouped creates (store::GroupedWrites) against a real database, with the real payout create: the
// requests that wait while a group is written are written together in one transaction; a refused
// request (insufficient_balance, limit_exceeded, a failing statement) is rolled back alone and
// the rest of its group commits; two requests with one Idempotency-Key in one group create one
// payout; a request that finds a slot free is written alone at once, unless a stall threshold is
// set and the group being written has not taken that long, when it waits for the next group. A
// group's first pass writes its holds and spend reservations at the commit; when their sums do
// not fit a balance or a limit together, only the request that does not fit is refused. And the
// create's first statement (claimed_create.h): it reads the limit overrides of its own
// organization and mode.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <stdexcept>
#include <thread>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/ids.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/money/ledger.h"
#include "infra/store/money/spend.h"
#include "infra/store/payouts/payouts.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;
namespace ledger = infra::store::ledger;
namespace payouts = infra::store::payouts;
namespace spend = infra::store::spend;
using Outcome = model::Result<payouts::CreateOutcome>;

class GroupedWrites : public DatabaseSuite<4> {
 protected:
  // A new organization with its test-mode sandbox funding (1,000,000 USDC).
  static std::string new_organization() {
    static int count = 0;
    const auto org_id = "org_grouped_" + std::to_string(++count);
    database_->add_organization(org_id);
    const auto opened = pool_->transact([&](pqxx::work& tx) -> model::Status {
      ledger::open_accounts(tx, org_id);
      return model::ok_status();
    });
    EXPECT_TRUE(opened.ok());
    return org_id;
  }

  static payouts::NewPayout payout(const std::string& org_id, const std::string& amount,
                                   std::string key = "") {
    payouts::NewPayout request;
    request.id = infra::new_id("po_");
    if (key.empty()) key = "key-" + request.id;
    request.scope = {org_id, model::Mode::test, key};
    request.endpoint = "POST /v1/payouts";
    request.request_hash = "hash-" + key;
    request.amount = amount;
    request.currency = "USDC";
    request.network = "ethereum";
    request.address = "0x52908400098527886E0F7030069857D2E4169EE7";
    request.amount_usd = amount;
    return request;
  }

  static std::string lock_key(const payouts::NewPayout& request) {
    return ledger::balance_key(request.scope.org_id, request.scope.mode, request.currency);
  }

  // Writes requests[0] first and holds its transaction open until every other request waits, so
  // that those are written as one group (max_requests permitting), each reading its claim and
  // insert ahead as the API's creates do. `before` runs in each request's transaction before its
  // create. Returns each one's outcome.
  using Before = std::function<void(pqxx::work& tx, std::size_t index)>;
  static std::vector<Outcome> write_behind_first(infra::store::GroupedWrites& writes,
                                                 const std::vector<payouts::NewPayout>& requests,
                                                 const Before& before = {}) {
    std::vector<std::optional<Outcome>> outcomes(requests.size());
    std::atomic<bool> first_started = false;
    const auto create = [&](pqxx::work& tx, std::size_t i) {
      if (before) before(tx, i);
      return payouts::create(tx, requests[i]);
    };
    std::vector<std::thread> threads;
    threads.emplace_back([&] {
      outcomes[0] = writes.write_one<payouts::CreateOutcome>(
          lock_key(requests[0]),
          [&](pqxx::work& tx) {
            first_started = true;
            while (writes.waiting() < requests.size() - 1) std::this_thread::yield();
            return create(tx, 0);
          },
          payouts::create_ahead(requests[0]));
    });
    while (!first_started) std::this_thread::yield();
    for (std::size_t i = 1; i < requests.size(); ++i) {
      threads.emplace_back([&, i] {
        outcomes[i] = writes.write_one<payouts::CreateOutcome>(
            lock_key(requests[i]), [&, i](pqxx::work& tx) { return create(tx, i); },
            payouts::create_ahead(requests[i]));
      });
    }
    for (auto& thread : threads) thread.join();
    std::vector<Outcome> results;
    for (auto& outcome : outcomes) results.push_back(std::move(*outcome));
    return results;
  }

  // Writes a payout in a thread and, once its transaction has started, a second one of the same
  // organization from this thread. `hold` runs in the first's transaction before its create,
  // given whether the second has been written, and decides how long the first holds its group.
  // Both are written, in two transactions.
  using Hold = std::function<void(const std::atomic<bool>& second_done)>;
  static void write_while_first_holds(infra::store::GroupedWrites& writes, const Hold& hold) {
    const auto org_id = new_organization();
    const auto first = payout(org_id, "1.00");
    const auto second = payout(org_id, "2.00");
    std::atomic<bool> first_started = false;
    std::atomic<bool> second_done = false;
    std::thread holder([&] {
      const auto outcome =
          writes.write_one<payouts::CreateOutcome>(lock_key(first), [&](pqxx::work& tx) {
            first_started = true;
            hold(second_done);
            return payouts::create(tx, first);
          });
      EXPECT_TRUE(outcome.ok());
    });
    while (!first_started) std::this_thread::yield();
    const auto outcome = writes.write_one<payouts::CreateOutcome>(
        lock_key(second), [&](pqxx::work& tx) { return payouts::create(tx, second); });
    second_done = true;
    holder.join();
    ASSERT_TRUE(outcome.ok());
    EXPECT_EQ(transactions_of({first, second}), 2);
    EXPECT_EQ(held(org_id), "3.00");
  }

  // How many transactions wrote these payouts: created_at is now(), the start of the transaction
  // (xmin would count each savepoint's subtransaction apart).
  static int transactions_of(const std::vector<payouts::NewPayout>& requests) {
    std::string ids;
    for (const auto& request : requests) ids += (ids.empty() ? "'" : ",'") + request.id + "'";
    return std::stoi(database_->scalar(
        "SELECT count(DISTINCT created_at) FROM payouts WHERE id IN (" + ids + ")"));
  }

  static std::string count(const std::string& table, const std::string& where) {
    return database_->scalar("SELECT count(*) FROM " + table + " WHERE " + where);
  }

  // The organization's test-mode spend counter of today, in USD.
  static std::string day_spend(const std::string& org_id) {
    return database_->scalar(
        "SELECT amount_usd::numeric(20,2)::text FROM spend_counters WHERE "
        "org_id = '" +
        org_id + "' AND period = 'day'");
  }

  static std::string held(const std::string& org_id) {
    return database_->scalar("SELECT held::numeric(20,2)::text FROM balances WHERE org_id = '" +
                             org_id + "' AND mode = 'test' AND asset = 'USDC'");
  }
};

TEST_F(GroupedWrites, RequestsThatWaitAreWrittenInOneTransaction) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto first = new_organization();
  const auto second = new_organization();
  std::vector<payouts::NewPayout> requests;
  for (int i = 0; i < 17; ++i) requests.push_back(payout(i % 2 == 0 ? first : second, "10.00"));

  const auto outcomes = write_behind_first(writes, requests);

  for (const auto& outcome : outcomes) {
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    ASSERT_TRUE(outcome->created.has_value());
  }
  EXPECT_EQ(transactions_of(requests), 2);  // the first alone, the other 16 together
  EXPECT_EQ(held(first), "90.00");
  EXPECT_EQ(held(second), "80.00");
  // Each payout has its own transition log, event and payouts.requested message.
  EXPECT_EQ(count("resource_transitions", "resource_id IN (SELECT id FROM payouts WHERE org_id IN ('" +
                                            first + "','" + second + "'))"),
            "17");
  EXPECT_EQ(count("events", "org_id IN ('" + first + "','" + second + "')"), "17");
  EXPECT_EQ(count("outbox",
                  "topic = 'payouts.requested' AND message_key IN (SELECT id FROM "
                  "payouts WHERE org_id IN ('" +
                      first + "','" + second + "'))"),
            "17");
}

TEST_F(GroupedWrites, ARefusedRequestIsRolledBackAloneAndTheRestOfItsGroupCommits) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto funded = new_organization();
  const auto short_of_funds = new_organization();
  ASSERT_TRUE(
      spend::set_overrides(*pool_, short_of_funds, model::Mode::test, {.per_payout_usd = "5000000"})
          .ok());
  std::vector<payouts::NewPayout> requests{
      payout(funded, "1.00"),
      payout(funded, "2.00"),
      payout(short_of_funds, "2000000.00"),  // more than the 1,000,000 USDC balance
      payout(funded, "3.00"),
      payout(funded, "200000.00"),  // over the test mode's 100,000 USD per-payout limit
      payout(short_of_funds, "4.00")};

  const auto outcomes = write_behind_first(writes, requests);

  ASSERT_FALSE(outcomes[2].ok());
  EXPECT_EQ(outcomes[2].error().code, model::ErrorCode::insufficient_balance);
  ASSERT_FALSE(outcomes[4].ok());
  EXPECT_EQ(outcomes[4].error().code, model::ErrorCode::limit_exceeded);
  std::vector<payouts::NewPayout> committed;
  for (std::size_t i : {0, 1, 3, 5}) {
    ASSERT_TRUE(outcomes[i].ok()) << i << ": " << outcomes[i].error().message;
    committed.push_back(requests[i]);
  }
  EXPECT_EQ(transactions_of(committed), 2);  // the first alone, the three others together
  EXPECT_EQ(held(funded), "6.00");
  EXPECT_EQ(held(short_of_funds), "4.00");
  for (std::size_t i : {2, 4}) {
    const auto& refused = requests[i];
    EXPECT_EQ(count("payouts", "id = '" + refused.id + "'"), "0");
    EXPECT_EQ(count("idempotency_keys", "idempotency_key = '" + refused.scope.key + "'"), "0");
    EXPECT_EQ(count("journal_entries", "resource_id = '" + refused.id + "'"), "0");
    EXPECT_EQ(count("events", "resource_id = '" + refused.id + "'"), "0");
    EXPECT_EQ(count("resource_transitions", "resource_id = '" + refused.id + "'"), "0");
  }
  EXPECT_EQ(count("events", "org_id IN ('" + funded + "','" + short_of_funds + "')"), "4");
  // The daily spend counts the committed payouts only.
  EXPECT_EQ(day_spend(funded), "6.00");
}

TEST_F(GroupedWrites, ARequestWhoseStatementFailsIsIsolatedFromItsGroup) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();
  auto requests = std::vector<payouts::NewPayout>{payout(org_id, "1.00"), payout(org_id, "2.00"),
                                                  payout(org_id, "3.00"), payout(org_id, "4.00")};
  requests[2].id = "not_a_payout_id";  // the payouts table's CHECK refuses it: the insert fails

  const auto outcomes = write_behind_first(writes, requests);

  ASSERT_FALSE(outcomes[2].ok());
  EXPECT_EQ(outcomes[2].error().code, model::ErrorCode::internal_error);
  // As for a create written alone: the database's message is logged, never answered.
  EXPECT_EQ(outcomes[2].error().message, "An internal error occurred.");
  for (std::size_t i : {0, 1, 3}) ASSERT_TRUE(outcomes[i].ok()) << outcomes[i].error().message;
  EXPECT_EQ(held(org_id), "7.00");
  EXPECT_EQ(count("idempotency_keys", "idempotency_key = '" + requests[2].scope.key + "'"), "0");
}

TEST_F(GroupedWrites, OneKeyTwiceInAGroupCreatesOnePayout) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();
  const std::vector<payouts::NewPayout> requests{payout(org_id, "1.00"),
                                                 payout(org_id, "5.00", "the-same-key"),
                                                 payout(org_id, "5.00", "the-same-key")};

  const auto outcomes = write_behind_first(writes, requests);

  ASSERT_TRUE(outcomes[1].ok());
  ASSERT_TRUE(outcomes[2].ok());
  // Whichever of the two joined the group first creates the payout; the other finds its key.
  const bool first_created = outcomes[1]->created.has_value();
  const auto& created = first_created ? outcomes[1] : outcomes[2];
  const auto& replayed = first_created ? outcomes[2] : outcomes[1];
  const auto& lost = first_created ? requests[2] : requests[1];
  ASSERT_TRUE(created->created.has_value());
  ASSERT_FALSE(replayed->created.has_value());
  ASSERT_TRUE(replayed->existing.has_value());
  EXPECT_EQ(replayed->existing->resource_id, created->created->resource.id);
  EXPECT_EQ(held(org_id), "6.00");
  EXPECT_EQ(count("payouts", "id = '" + lost.id + "'"), "0");
}

TEST_F(GroupedWrites, ARequestThatFindsASlotFreeIsWrittenAloneAtOnce) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 2});
  // The first holds its slot until the second, written in the other slot, has committed.
  write_while_first_holds(writes, [](const std::atomic<bool>& second_done) {
    while (!second_done) std::this_thread::yield();
  });
}

// With a stall threshold, a free slot is not enough: a request that arrives while a group is
// being written, and is not stalled, waits for it and goes into the next group.
TEST_F(GroupedWrites, ARequestWaitsForAGroupThatIsNotStalledThoughASlotIsFree) {
  infra::store::GroupedWrites writes(
      *pool_, {.max_requests = 16, .max_groups = 2, .stalled_after = std::chrono::seconds(10)});
  bool second_done_while_first_ran = true;
  write_while_first_holds(writes, [&](const std::atomic<bool>& second_done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
    while (writes.waiting() < 1 && !second_done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    second_done_while_first_ran = second_done;
  });
  EXPECT_FALSE(second_done_while_first_ran);
}

// ... and once the group being written has taken longer than the threshold (a lock wait, say),
// the next one starts in the free slot: a stalled group does not hold up every create.
TEST_F(GroupedWrites, AStalledGroupLetsTheNextOneStartInTheFreeSlot) {
  infra::store::GroupedWrites writes(
      *pool_,
      {.max_requests = 16, .max_groups = 2, .stalled_after = std::chrono::milliseconds(50)});
  write_while_first_holds(writes, [](const std::atomic<bool>& second_done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!second_done && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
    EXPECT_TRUE(second_done) << "the second request waited for the stalled group";
  });
}

TEST_F(GroupedWrites, ACreateReadsTheLimitOverridesOfItsOwnModeWithItsClaim) {
  const auto tight = new_organization();  // test mode: at most 10 USD a payout; live: 5,000,000
  ASSERT_TRUE(
      spend::set_overrides(*pool_, tight, model::Mode::test, {.per_payout_usd = "10"}).ok());
  ASSERT_TRUE(
      spend::set_overrides(*pool_, tight, model::Mode::live, {.per_payout_usd = "5000000"}).ok());
  const auto loose = new_organization();  // live mode only: at most 5 USD; test mode: the default
  ASSERT_TRUE(spend::set_overrides(*pool_, loose, model::Mode::live, {.per_payout_usd = "5"}).ok());
  const auto create = [](const payouts::NewPayout& request) {
    return pool_->transact([&](pqxx::work& tx) { return payouts::create(tx, request); });
  };

  const auto over = payout(tight, "10.01", "tight-key");
  const auto refused = create(over);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, model::ErrorCode::limit_exceeded);
  EXPECT_NE(refused.error().message.find("limit of 10 USD"), std::string::npos);
  EXPECT_EQ(count("payouts", "id = '" + over.id + "'"), "0");
  // The refused create left its key unused: it can be used again.
  const auto within = create(payout(tight, "10.00", "tight-key"));
  ASSERT_TRUE(within.ok()) << within.error().message;
  ASSERT_TRUE(within->created.has_value());
  const auto loose_create = create(payout(loose, "11.00"));
  ASSERT_TRUE(loose_create.ok()) << loose_create.error().message;
  EXPECT_TRUE(loose_create->created.has_value());
  // A key used before returns its record and inserts nothing.
  const auto again = payout(tight, "10.00", "tight-key");
  const auto replayed = create(again);
  ASSERT_TRUE(replayed.ok());
  ASSERT_TRUE(replayed->existing.has_value());
  EXPECT_EQ(replayed->existing->resource_id, within->created->resource.id);
  EXPECT_EQ(count("payouts", "id = '" + again.id + "'"), "0");
}

// The group's first pass defers every hold and spend reservation to its commit (store::grouped):
// neither the balance nor the counters change before the flush, and both take the group's sums
// at it, one entry per payout.
TEST_F(GroupedWrites, InAGroupsFirstPassHoldsAndReservationsAreWrittenAtTheCommit) {
  const auto org_id = new_organization();
  const std::vector<payouts::NewPayout> requests{payout(org_id, "1.50"), payout(org_id, "2.25")};
  const auto in_tx = [&](pqxx::work& tx, const std::string& sql) {
    return tx.exec1(sql)[0].as<std::string>();
  };
  const auto held_sql = "SELECT held::numeric(20,2)::text FROM balances WHERE org_id = '" + org_id +
                        "' AND mode = 'test' AND asset = 'USDC'";
  const auto day_sql =
      "SELECT coalesce(sum(amount_usd), 0)::numeric(20,2)::text FROM "
      "spend_counters WHERE org_id = '" +
      org_id + "' AND period = 'day'";
  std::vector<std::string> seen;
  const auto written = pool_->transact([&](pqxx::work& tx) -> model::Status {
    infra::store::mark_grouped(tx);
    for (const auto& request : requests) {
      auto created = payouts::create(tx, request);
      if (!created.ok()) return created.error();
    }
    seen = {in_tx(tx, held_sql), in_tx(tx, day_sql)};
    infra::store::flush_deferred(tx);
    seen.push_back(in_tx(tx, held_sql));
    seen.push_back(in_tx(tx, day_sql));
    return model::ok_status();
  });

  ASSERT_TRUE(written.ok()) << written.error().message;
  EXPECT_EQ(seen, (std::vector<std::string>{"0.00", "0.00", "3.75", "3.75"}));
  EXPECT_EQ(held(org_id), "3.75");
  EXPECT_EQ(count("journal_entries", "org_id = '" + org_id + "' AND kind = 'hold'"), "2");
}

TEST_F(GroupedWrites, AGroupWhoseHoldsTogetherPassTheBalanceRefusesOnlyTheOneThatDoesNotFit) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();  // 1,000,000 USDC
  ASSERT_TRUE(spend::set_overrides(*pool_, org_id, model::Mode::test,
                                   {.per_payout_usd = "5000000", .daily_usd = "5000000"})
                  .ok());
  // Each fits the balance alone; any two of the last three fit it together, not all three. Which
  // one is refused depends on the order the three joined the group in.
  const std::vector<payouts::NewPayout> requests{
      payout(org_id, "1.00"), payout(org_id, "400000.00"), payout(org_id, "400000.00"),
      payout(org_id, "400000.00")};

  const auto outcomes = write_behind_first(writes, requests);

  ASSERT_TRUE(outcomes[0].ok()) << outcomes[0].error().message;
  std::vector<payouts::NewPayout> committed{requests[0]};
  int refused = 0;
  for (std::size_t i : {1, 2, 3}) {
    if (outcomes[i].ok()) {
      committed.push_back(requests[i]);
      continue;
    }
    ++refused;
    EXPECT_EQ(outcomes[i].error().code, model::ErrorCode::insufficient_balance);
    EXPECT_EQ(count("payouts", "id = '" + requests[i].id + "'"), "0");
  }
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(transactions_of(committed), 2);  // the first alone, the two others together
  EXPECT_EQ(held(org_id), "800001.00");
  EXPECT_EQ(day_spend(org_id), "800001.00");
}

TEST_F(GroupedWrites, AGroupWhoseReservationsTogetherPassALimitRefusesOnlyTheOneThatDoesNotFit) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();
  const auto other = new_organization();
  ASSERT_TRUE(spend::set_overrides(*pool_, org_id, model::Mode::test, {.daily_usd = "1000"}).ok());
  // Each fits the daily limit alone, and so does the sum of org_id's three after the first (900);
  // with what the first reserved (300) any two of them fit it, not all three. The other
  // organization's reservation in the same group is not refused.
  const std::vector<payouts::NewPayout> requests{payout(org_id, "300.00"), payout(org_id, "300.00"),
                                                 payout(other, "700.00"), payout(org_id, "300.00"),
                                                 payout(org_id, "300.00")};

  const auto outcomes = write_behind_first(writes, requests);

  for (std::size_t i : {0, 2}) ASSERT_TRUE(outcomes[i].ok()) << outcomes[i].error().message;
  int refused = 0;
  for (std::size_t i : {1, 3, 4}) {
    if (outcomes[i].ok()) continue;
    ++refused;
    EXPECT_EQ(outcomes[i].error().code, model::ErrorCode::limit_exceeded);
    EXPECT_NE(outcomes[i].error().message.find("daily limit of 1000 USD"), std::string::npos);
    EXPECT_EQ(count("payouts", "id = '" + requests[i].id + "'"), "0");
  }
  EXPECT_EQ(refused, 1);
  EXPECT_EQ(day_spend(org_id), "900.00");
  EXPECT_EQ(day_spend(other), "700.00");
  EXPECT_EQ(held(org_id), "900.00");
}

// The group's first pass claims every key and inserts every payout with one statement before
// any create runs: each create of the group finds all the group's payouts written already.
TEST_F(GroupedWrites, AGroupsCreatesClaimAndInsertWithOneStatementBeforeAnyOfThemRuns) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();
  std::vector<payouts::NewPayout> requests;
  for (int i = 0; i < 4; ++i) requests.push_back(payout(org_id, "1.00"));
  requests[2].metadata_json = R"({"note":"it's \"quoted\", {braced}, back\\slashed"})";
  std::string group_ids;
  for (std::size_t i = 1; i < requests.size(); ++i) {
    group_ids += (group_ids.empty() ? "'" : ",'") + requests[i].id + "'";
  }
  std::vector<std::string> seen(requests.size());

  const auto outcomes = write_behind_first(writes, requests, [&](pqxx::work& tx, std::size_t i) {
    seen[i] = tx.exec1("SELECT count(*) FROM payouts WHERE id IN (" + group_ids + ")")[0]
                  .as<std::string>();
  });

  for (const auto& outcome : outcomes) {
    ASSERT_TRUE(outcome.ok()) << outcome.error().message;
    ASSERT_TRUE(outcome->created.has_value());
  }
  EXPECT_EQ(seen, (std::vector<std::string>{"0", "3", "3", "3"}));
  EXPECT_EQ(transactions_of(requests), 2);
  // Each create got its own row back, as its statement alone returns it.
  for (std::size_t i = 0; i < requests.size(); ++i) {
    const auto& created = *outcomes[i]->created;
    EXPECT_EQ(created.resource.id, requests[i].id);
    EXPECT_EQ(created.resource.metadata_json, requests[i].metadata_json);
    EXPECT_EQ(created.resource.status, "pending");
    EXPECT_FALSE(created.resource.created_at.empty());
    EXPECT_EQ(database_->scalar("SELECT encode(request_hash, 'escape') FROM idempotency_keys "
                                "WHERE resource_id = '" +
                                requests[i].id + "'"),
              requests[i].request_hash);
  }
  EXPECT_EQ(held(org_id), "4.00");
}

// A fiat payout's group statement writes the same row as its create alone: the sealed account's
// bytes (any byte, through hex), the rate's time and the masked account.
TEST_F(GroupedWrites, AGroupsFiatPayoutCreatesReadAheadWriteTheRowsTheirCreatesWouldWrite) {
  infra::store::GroupedWrites writes(*pool_, {.max_requests = 16, .max_groups = 1});
  const auto org_id = new_organization();
  std::vector<fiat_payouts::NewFiatPayout> requests;
  for (int i = 0; i < 3; ++i) {
    fiat_payouts::NewFiatPayout request;
    request.id = infra::new_id("fpo_");
    request.scope = {org_id, model::Mode::test, "fiat-key-" + request.id};
    request.endpoint = "POST /v1/fiat-payouts";
    request.request_hash = std::string("\x00\xff\x01'\"{", 6) + request.id;
    request.amount = "100.00";
    request.currency = "CAD";
    request.country = "CA";
    request.beneficiary_name = "Zoë O'Brien, \"the\" payee";
    request.account_type = "eft";
    request.account_sealed = std::string("\x00\x01\xfe\xff\\{}\",'", 10) + std::string(30, 'x');
    request.account_masked_json = R"({"account_number":"••••6789"})";
    request.usdc_amount = "73.529412";
    request.rate = "1.36";
    request.rate_as_of = "2026-11-24T10:00:00Z";
    request.amount_usd = "73.53";
    requests.push_back(std::move(request));
  }
  std::vector<std::optional<model::Result<fiat_payouts::CreateOutcome>>> outcomes(3);
  std::atomic<bool> first_started = false;
  std::vector<std::thread> threads;
  const auto key = ledger::balance_key(org_id, model::Mode::test, "USDC");
  threads.emplace_back([&] {
    outcomes[0] = writes.write_one<fiat_payouts::CreateOutcome>(
        key,
        [&](pqxx::work& tx) {
          first_started = true;
          while (writes.waiting() < 2) std::this_thread::yield();
          return fiat_payouts::create(tx, requests[0]);
        },
        fiat_payouts::create_ahead(requests[0]));
  });
  while (!first_started) std::this_thread::yield();
  for (std::size_t i = 1; i < 3; ++i) {
    threads.emplace_back([&, i] {
      outcomes[i] = writes.write_one<fiat_payouts::CreateOutcome>(
          key, [&, i](pqxx::work& tx) { return fiat_payouts::create(tx, requests[i]); },
          fiat_payouts::create_ahead(requests[i]));
    });
  }
  for (auto& thread : threads) thread.join();

  const auto row_of = [&](const std::string& id) {
    return database_->scalar(
        "SELECT concat_ws('|', encode(f.account_sealed, 'hex'), f.beneficiary_name, "
        "f.account_masked, f.usdc_amount, f.rate, f.rate_as_of AT TIME ZONE 'UTC', f.amount_usd, "
        "encode(k.request_hash, 'hex')) FROM fiat_payouts f JOIN idempotency_keys k ON "
        "k.resource_id = f.id WHERE f.id = '" +
        id + "'");
  };
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_TRUE(outcomes[i]->ok()) << outcomes[i]->error().message;
    ASSERT_TRUE((*outcomes[i])->created.has_value());
    EXPECT_EQ((*outcomes[i])->created->resource.id, requests[i].id);
  }
  // The first was written alone, by its own statement; the two others by the group's.
  const auto alone = row_of(requests[0].id);
  const auto& sealed = requests[0].account_sealed;
  EXPECT_EQ(alone.substr(0, sealed.size() * 2), infra::crypto::hex_encode(sealed));
  for (std::size_t i = 1; i < 3; ++i) {
    auto grouped = row_of(requests[i].id);
    EXPECT_EQ(grouped.substr(0, grouped.rfind('|')), alone.substr(0, alone.rfind('|')));
    EXPECT_EQ(grouped.substr(grouped.rfind('|') + 1),
              infra::crypto::hex_encode(requests[i].request_hash));
  }
  EXPECT_EQ(held(org_id), "220.59");
}

}  // namespace
}  // namespace payrail::testing
