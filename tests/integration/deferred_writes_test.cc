// Balance changes and spend give-backs deferred to the end of the transaction (store::defer_row),
// against a real database: a transaction's changes are summed into each row just before it
// commits; until then the balance row is not locked (another transaction can lock it), after
// that it is; a rolled-back savepoint discards its changes, a kept one carries them; a change
// that would make a balance negative, or one to a balance that does not exist, fails the commit
// and nothing of it is kept; a movement's journal entry is written with its change, and an outcome
// an earlier transaction applied fails the commit; a hold is still applied at once and refused when
// short; outside Pool::transact a change is written at once; a hold first writes what the
// transaction deferred. In a worker's batch a message whose deferred write fails is isolated like
// any failing message: the rest of the batch commits.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/sql/deferred_writes.h"
#include "infra/store/money/ledger.h"
#include "infra/store/money/spend.h"
#include "infra/store/webhooks/events.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace events = infra::store::events;
namespace ledger = infra::store::ledger;
namespace spend = infra::store::spend;
using ledger::Movement;

class DeferredWrites : public DatabaseSuite<2> {
 protected:
  // Runs `work` in one Pool::transact, which commits unless the work throws or the commit fails.
  template <class Work>
  static model::Status run(Work&& work) {
    return pool_->transact([&](pqxx::work& tx) -> model::Status {
      work(tx);
      return model::ok_status();
    });
  }

  // A new organization with its test-mode sandbox funding (1,000,000 USDC), which open_accounts
  // itself defers.
  static std::string new_organization() {
    static int count = 0;
    const auto org_id = "org_deferred_" + std::to_string(++count);
    database_->add_organization(org_id);
    const auto opened = run([&](pqxx::work& tx) { ledger::open_accounts(tx, org_id); });
    EXPECT_TRUE(opened.ok());
    return org_id;
  }

  static ledger::Applied apply(pqxx::work& tx, const std::string& org_id, Movement movement,
                               const std::string& resource_id, const std::string& amount) {
    return ledger::apply(tx, org_id, model::Mode::test, "USDC", movement, resource_id, amount);
  }

  // "available/held" of the organization's test USDC balance.
  static std::string balance(const std::string& org_id) {
    return database_->scalar(
        "SELECT available::numeric(20,2)::text || '/' || held::numeric(20,2)::text FROM balances "
        "WHERE org_id = '" +
        org_id + "' AND mode = 'test' AND asset = 'USDC'");
  }

  // Whether another connection can lock the balance row right now.
  static bool balance_lockable(const std::string& org_id) {
    auto connection = database_->connect();
    pqxx::work tx(*connection);
    try {
      tx.exec_params(
          "SELECT 1 FROM balances WHERE org_id = $1 AND mode = 'test' AND asset = 'USDC' "
          "FOR UPDATE NOWAIT",
          org_id);
      return true;
    } catch (const pqxx::sql_error&) {
      return false;
    }
  }

  // Holds `amount` for each resource in its own committed transaction.
  static void hold(const std::string& org_id, const std::vector<std::string>& resources,
                   const std::string& amount) {
    for (const auto& resource : resources) {
      const auto held = run([&](pqxx::work& tx) {
        EXPECT_EQ(apply(tx, org_id, Movement::hold, resource, amount), ledger::Applied::applied);
      });
      ASSERT_TRUE(held.ok());
    }
  }
};

TEST_F(DeferredWrites, OpeningAccountsFundsTheSandboxAtCommit) {
  const auto org_id = new_organization();
  EXPECT_EQ(balance(org_id), "1000000.00/0.00");
}

TEST_F(DeferredWrites, ChangesAreSummedAndTheRowIsLockedOnlyFromTheFlush) {
  const auto org_id = new_organization();
  hold(org_id, {"po_a", "po_b", "po_c"}, "100");
  EXPECT_EQ(balance(org_id), "999700.00/300.00");
  const auto committed = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::settle, "po_a", "100"), ledger::Applied::applied);
    EXPECT_EQ(apply(tx, org_id, Movement::release, "po_b", "100"), ledger::Applied::applied);
    EXPECT_EQ(apply(tx, org_id, Movement::refund, "po_c", "100"), ledger::Applied::applied);
    // A second application of the same movement is still refused by its journal entry.
    EXPECT_EQ(apply(tx, org_id, Movement::settle, "po_a", "100"), ledger::Applied::already_applied);
    EXPECT_TRUE(balance_lockable(org_id)) << "the balance row is locked before the flush";
    infra::store::flush_deferred(tx);
    EXPECT_FALSE(balance_lockable(org_id)) << "the flush did not lock the balance row";
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(balance(org_id), "999900.00/0.00");
}

// A movement's journal entry is written with its balance change at the commit; one whose resource
// had its outcome applied by an earlier transaction fails the transaction there, and nothing of it
// is kept.
TEST_F(DeferredWrites, AnOutcomeAppliedInAnEarlierTransactionFailsTheTransaction) {
  const auto org_id = new_organization();
  hold(org_id, {"po_once"}, "10");
  const auto settled = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::settle, "po_once", "10"), ledger::Applied::applied);
    // Another outcome of the same payout in the same transaction is refused at once.
    EXPECT_EQ(apply(tx, org_id, Movement::release, "po_once", "10"),
              ledger::Applied::already_applied);
    EXPECT_EQ(
        tx.exec1("SELECT count(*) FROM journal_entries WHERE resource_id = 'po_once'")[0].as<int>(),
        1)
        << "the settlement's entry waits for the commit (the hold's alone)";
  });
  ASSERT_TRUE(settled.ok());
  const auto again = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::release, "po_once", "10"), ledger::Applied::applied);
  });
  EXPECT_FALSE(again.ok());
  EXPECT_EQ(balance(org_id), "999990.00/0.00");
  EXPECT_EQ(database_->scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries "
                              "WHERE resource_id = 'po_once'"),
            "hold,settle");
}

TEST_F(DeferredWrites, ARolledBackTransactionChangesNothing) {
  const auto org_id = new_organization();
  hold(org_id, {"po_rolled_back"}, "40");
  const auto rolled_back = pool_->transact([&](pqxx::work& tx) -> model::Status {
    apply(tx, org_id, Movement::release, "po_rolled_back", "40");
    return model::Error::make(model::ErrorCode::internal_error, "rolled back on purpose");
  });
  EXPECT_FALSE(rolled_back.ok());
  EXPECT_EQ(balance(org_id), "999960.00/40.00");
}

TEST_F(DeferredWrites, ASavepointKeepsOrDiscardsItsChanges) {
  const auto org_id = new_organization();
  hold(org_id, {"po_kept", "po_dropped"}, "10");
  const auto committed = run([&](pqxx::work& tx) {
    for (const auto* resource : {"po_kept", "po_dropped"}) {
      tx.exec0("SAVEPOINT message");
      infra::pg::SavepointHooks hooks;
      apply(tx, org_id, Movement::release, resource, "10");
      if (std::string(resource) == "po_kept") {
        tx.exec0("RELEASE SAVEPOINT message");
        hooks.keep();
      } else {
        tx.exec0("ROLLBACK TO SAVEPOINT message");
      }
    }
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(balance(org_id), "999990.00/10.00");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM journal_entries WHERE resource_id = "
                              "'po_dropped' AND kind = 'release'"),
            "0");
}

TEST_F(DeferredWrites, AChangeThatWouldMakeABalanceNegativeFailsTheCommit) {
  const auto org_id = new_organization();
  hold(org_id, {"po_small"}, "5");
  // Settling more than is held: the held balance would go below zero.
  const auto failed =
      run([&](pqxx::work& tx) { apply(tx, org_id, Movement::settle, "po_small", "6"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(balance(org_id), "999995.00/5.00");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM journal_entries WHERE resource_id = "
                              "'po_small' AND kind = 'settle'"),
            "0");
}

TEST_F(DeferredWrites, AChangeToABalanceThatDoesNotExistFailsTheCommit) {
  const auto org_id = "org_deferred_without_accounts";
  database_->add_organization(org_id);
  const auto failed =
      run([&](pqxx::work& tx) { apply(tx, org_id, Movement::credit, "col_nowhere", "3"); });
  ASSERT_FALSE(failed.ok());
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM journal_entries WHERE org_id = '" +
                              std::string(org_id) + "'"),
            "0");
}

TEST_F(DeferredWrites, AHoldIsAppliedAtOnceAndRefusedWhenShort) {
  const auto org_id = new_organization();
  const auto committed = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_big", "1000001"),
              ledger::Applied::insufficient_balance);
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_fits", "1000000"), ledger::Applied::applied);
    EXPECT_FALSE(balance_lockable(org_id)) << "a hold must lock the balance at once";
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(balance(org_id), "0.00/1000000.00");
}

// The hold's entry, postings and balance change are one statement: a hold applied before (in this
// transaction or an earlier one) writes nothing and leaves the balance as it was.
TEST_F(DeferredWrites, AHoldAppliedTwiceChangesTheBalanceOnce) {
  const auto org_id = new_organization();
  const auto committed = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_twice", "30"), ledger::Applied::applied);
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_twice", "30"),
              ledger::Applied::already_applied);
  });
  ASSERT_TRUE(committed.ok());
  const auto again = run([&](pqxx::work& tx) {
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_twice", "30"),
              ledger::Applied::already_applied);
  });
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(balance(org_id), "999970.00/30.00");
  EXPECT_EQ(database_->scalar("SELECT count(*) || ' ' || sum(p.amount)::numeric(20,2)::text "
                              "FROM journal_entries e JOIN journal_postings p ON p.entry_id = e.id "
                              "WHERE e.resource_id = 'po_twice' AND p.account = 'held'"),
            "1 30.00");
}

// A create's transition log and events are deferred like the rest, but written before its hold:
// the balance row is then held for the fewest statements.
TEST_F(DeferredWrites, AHoldFirstWritesWhatTheTransactionDeferred) {
  const auto org_id = new_organization();
  const auto committed = run([&](pqxx::work& tx) {
    const auto event_id = events::append(
        tx, {org_id, model::Mode::test, "payout.created", "payout", "po_held_after", 1},
        [](const std::string&, const std::string&) { return "{}"; });
    const auto visible = [&] {
      return tx.exec1("SELECT count(*) FROM events WHERE id = " + tx.quote(event_id))[0].as<int>();
    };
    EXPECT_EQ(visible(), 0);
    EXPECT_EQ(apply(tx, org_id, Movement::hold, "po_held_after", "5"), ledger::Applied::applied);
    EXPECT_EQ(visible(), 1);
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(balance(org_id), "999995.00/5.00");
}

TEST_F(DeferredWrites, OutsideAPoolTransactionAChangeIsWrittenAtOnce) {
  const auto org_id = new_organization();
  hold(org_id, {"po_direct"}, "7");
  auto connection = database_->connect();
  pqxx::work tx(*connection);
  EXPECT_EQ(apply(tx, org_id, Movement::release, "po_direct", "7"), ledger::Applied::applied);
  EXPECT_EQ(tx.exec1("SELECT held::numeric(20,2)::text FROM balances WHERE org_id = " +
                     tx.quote(org_id) + " AND mode = 'test' AND asset = 'USDC'")[0]
                .as<std::string>(),
            "0.00");
  tx.commit();
  EXPECT_EQ(balance(org_id), "1000000.00/0.00");
}

TEST_F(DeferredWrites, GiveBacksAreSummedPerCounterAndNeverGoBelowZero) {
  const auto org_id = new_organization();
  const auto limits = model::default_payout_limits(model::Mode::test);
  const auto reserved = pool_->transact([&](pqxx::work& tx) -> model::Status {
    return spend::reserve(tx, org_id, model::Mode::test, "50", limits);
  });
  ASSERT_TRUE(reserved.ok());
  const auto now = database_->scalar(
      "SELECT to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"')");
  const auto given = run([&](pqxx::work& tx) {
    spend::give_back(tx, {org_id, model::Mode::test, "20", now});
    spend::give_back(tx, {org_id, model::Mode::test, "10", now});
    // A payout of another month gives back to that month's counters only (none here).
    spend::give_back(tx, {org_id, model::Mode::test, "5", "2001-01-15T00:00:00Z"});
  });
  ASSERT_TRUE(given.ok());
  const auto counters = [&] {
    return database_->scalar(
        "SELECT string_agg(period || '=' || amount_usd::numeric(20,2)::text, ' ' ORDER BY period) "
        "FROM spend_counters WHERE org_id = '" +
        org_id + "'");
  };
  EXPECT_EQ(counters(), "day=20.00 month=20.00");
  const auto more = run([&](pqxx::work& tx) {
    spend::give_back(tx, {org_id, model::Mode::test, "15", now});
    spend::give_back(tx, {org_id, model::Mode::test, "15", now});
  });
  ASSERT_TRUE(more.ok());
  EXPECT_EQ(counters(), "day=0.00 month=0.00");
}

TEST_F(DeferredWrites, AWorkerBatchIsolatesTheMessageWhoseDeferredWriteFails) {
  const auto org_id = new_organization();
  hold(org_id, {"po_batch_1", "po_batch_2"}, "10");
  const auto nowhere = "org_deferred_batch_without_accounts";
  database_->add_organization(nowhere);
  const auto delivery = [](const std::string& message_id, int32_t partition) {
    infra::kafka::Delivery result;
    result.envelope.message_id = message_id;
    result.envelope.resource_id = message_id;
    result.topic = "payouts.broadcast";
    result.partition = partition;
    return result;
  };
  // The failing message has a partition of its own, so the rest of the batch does not wait for it.
  infra::runtime::Batch batch(
      topics::kPayoutsBroadcast,
      {delivery("po_batch_1", 0), delivery("col_batch_nowhere", 1), delivery("po_batch_2", 0)});
  auto producer = infra::kafka::Producer::create({.brokers = "127.0.0.1:9"});
  ASSERT_TRUE(producer.ok());
  infra::store::outbox::Relay relay(*pool_, **producer, {});
  infra::Config config;
  infra::runtime::WorkerContext context{config, *pool_, relay, "deferred-writes-test"};
  const auto applied =
      infra::runtime::apply_each(context, batch, [&](pqxx::work& tx, std::size_t index) {
        const auto& resource = batch.message(index).resource_id;
        if (index == 1)
          apply(tx, nowhere, Movement::credit, resource, "1");
        else
          apply(tx, org_id, Movement::settle, resource, "10");
        return model::ok_status();
      });
  EXPECT_TRUE(applied.ok());
  EXPECT_EQ(batch.outcomes(),
            (std::vector<infra::kafka::HandlerOutcome>{infra::kafka::HandlerOutcome::done,
                                                       infra::kafka::HandlerOutcome::retry,
                                                       infra::kafka::HandlerOutcome::done}));
  EXPECT_EQ(balance(org_id), "999980.00/0.00");
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM journal_entries WHERE resource_id = "
                              "'col_batch_nowhere'"),
            "0");
  EXPECT_EQ(database_->scalar("SELECT attempts || ' ' || (last_error LIKE '%found no row%') "
                              "FROM message_failures WHERE message_id = 'col_batch_nowhere'"),
            "1 true");
}

}  // namespace
}  // namespace payrail::testing
