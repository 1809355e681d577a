// A worker batch locks the rows of all its messages with one statement (TopicHandler::prefetch,
// payouts::lock_all) against a real database: every payout of the batch is locked before its
// first message is applied, and each message's lock() gets its own current row; a payout another
// transaction holds is skipped and waited for by its own message only; a second lock()
// of the same payout in the transaction reads what the transaction changed; a row taken inside a
// savepoint that is rolled back is read again, still locked by the transaction; outside
// Pool::transact nothing is kept; and when one message fails, the pass with savepoints locks and
// reads the rows again, so the rest of the batch is applied once, on current rows. Execution's
// broadcast intents of approved payouts are written at the commit, once each, even when the batch
// holds a payout's message twice.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/outbox/relay.h"
#include "infra/store/payouts/broadcasts.h"
#include "infra/store/payouts/payouts.h"
#include "tests/support/database_suite.h"
#include "workers/execution/execute_payout.h"

namespace payrail::testing {
namespace {

namespace broadcasts = infra::store::broadcasts;
namespace payouts = infra::store::payouts;

class BatchRowLocks : public DatabaseSuite<2> {
 protected:
  static void SetUpTestSuite() {
    DatabaseSuite::SetUpTestSuite();
    database_->add_organization(kOrg);
  }

  // A payout of its own in `status` (event_sequence 1).
  static std::string new_payout(const std::string& status = "approved") {
    static int count = 0;
    const auto id = "po_row_locks_" + std::to_string(++count);
    database_->scalar(
        "INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, "
        "amount_usd, event_sequence) VALUES ('" +
        id + "', '" + kOrg + "', 'test', '" + status +
        "', 10, 'USDC', 'polygon', "
        "'0x0000000000000000000000000000000000000001', 10, 1) RETURNING id");
    return id;
  }

  // Whether another connection can lock the payout right now.
  static bool lockable(const std::string& id) {
    auto connection = database_->connect();
    pqxx::work tx(*connection);
    try {
      tx.exec_params("SELECT 1 FROM payouts WHERE id = $1 FOR UPDATE NOWAIT", id);
      return true;
    } catch (const pqxx::sql_error&) {
      return false;
    }
  }

  static int sequence_of(const std::string& id) {
    return std::stoi(
        database_->scalar("SELECT event_sequence FROM payouts WHERE id = '" + id + "'"));
  }

  // A batch of approvals of `ids`, message i on partition `partitions[i]`, locking as execution's.
  static infra::runtime::Batch batch_of(
      const std::vector<std::string>& ids, const std::vector<int32_t>& partitions,
      infra::runtime::Prefetch prefetch = infra::runtime::lock_resources<payouts::lock_all>) {
    std::vector<infra::kafka::Delivery> deliveries;
    for (std::size_t i = 0; i < ids.size(); ++i)
      deliveries.push_back(delivery(ids[i], partitions[i]));
    return infra::runtime::Batch(topics::kPayoutsApproved, std::move(deliveries), prefetch);
  }

  static infra::kafka::Delivery delivery(const std::string& payout_id, int32_t partition) {
    infra::kafka::Delivery result;
    result.envelope.message_id = "msg_" + payout_id;
    result.envelope.resource_id = payout_id;
    result.topic = "payouts.approved";
    result.partition = partition;
    return result;
  }

  // Runs `apply` with a worker's context, as a role does.
  template <class Apply>
  static auto with_context(Apply&& apply) {
    auto producer = infra::kafka::Producer::create({.brokers = "127.0.0.1:9"});
    EXPECT_TRUE(producer.ok());
    infra::store::outbox::Relay relay(*pool_, **producer, {});
    infra::Config config;
    infra::runtime::WorkerContext context{config, *pool_, relay, "batch-row-locks-test"};
    return apply(context);
  }

  // Runs `apply` over the batch as a worker role does (apply_each).
  static model::Status apply_batch(infra::runtime::Batch& batch,
                                   const infra::runtime::ApplyOne& apply) {
    return with_context([&](infra::runtime::WorkerContext& context) {
      return infra::runtime::apply_each(context, batch, apply);
    });
  }

  static std::string broadcasts_of(const std::string& id) {
    return database_->scalar(
        "SELECT count(*) || ' ' || string_agg(coalesce(outcome, 'none'), ',') FROM "
        "payout_broadcasts WHERE payout_id = '" +
        id + "'");
  }

  static constexpr const char* kOrg = "org_batch_row_locks";
};

TEST_F(BatchRowLocks, EveryPayoutIsLockedBeforeTheFirstMessageAndEachGetsItsOwnRow) {
  const std::vector<std::string> ids{new_payout(), new_payout(), new_payout()};
  auto batch = batch_of(ids, {0, 0, 0});
  std::vector<bool> last_lockable_at;
  std::vector<std::string> read_ids;
  const auto applied = apply_batch(batch, [&](pqxx::work& tx, std::size_t index) {
    last_lockable_at.push_back(lockable(ids[2]));
    const auto payout = payouts::lock(tx, batch.message(index).resource_id);
    read_ids.push_back(payout ? payout->resource.id + "/" + payout->resource.status : "none");
    return model::ok_status();
  });
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(last_lockable_at, (std::vector<bool>{false, false, false}));
  EXPECT_EQ(read_ids, (std::vector<std::string>{ids[0] + "/approved", ids[1] + "/approved",
                                                ids[2] + "/approved"}));
  EXPECT_TRUE(lockable(ids[2]));  // released at the commit
}

TEST_F(BatchRowLocks, APayoutAnotherTransactionHoldsIsSkippedAndLockedByItsOwnMessage) {
  const std::vector<std::string> ids{new_payout(), new_payout(), new_payout()};
  auto connection = database_->connect();
  pqxx::work holder(*connection);
  holder.exec_params("SELECT 1 FROM payouts WHERE id = $1 FOR UPDATE", ids[1]);
  auto batch = batch_of(ids, {0, 0, 0});
  std::atomic<int> applied_count{0};
  std::vector<std::string> read_ids;
  model::Status applied = model::ok_status();
  std::thread worker([&] {
    applied = apply_batch(batch, [&](pqxx::work& tx, std::size_t index) {
      const auto payout = payouts::lock(tx, ids[index]);
      read_ids.push_back(payout ? payout->resource.id : "none");
      ++applied_count;
      return model::ok_status();
    });
  });
  // The batch waits at the held payout's own message: the one before it is applied, the one
  // after it is locked already.
  EXPECT_EQ(wait_for_value(*database_,
                           "SELECT count(*) FROM pg_stat_activity WHERE wait_event_type = 'Lock' "
                           "AND query LIKE '%WHERE id = $1 FOR UPDATE'",
                           "1"),
            "1");
  EXPECT_EQ(applied_count.load(), 1);
  EXPECT_FALSE(lockable(ids[2]));
  holder.abort();
  worker.join();
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(read_ids, ids);
  EXPECT_EQ(batch.outcomes(),
            std::vector<infra::kafka::HandlerOutcome>(3, infra::kafka::HandlerOutcome::done));
}

TEST_F(BatchRowLocks, ASecondLockOfAPayoutReadsWhatTheTransactionChanged) {
  const auto id = new_payout();
  std::string first;
  std::string second;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    payouts::lock_all(tx, {id});
    first = payouts::lock(tx, id)->resource.status;
    tx.exec_params("UPDATE payouts SET status = 'processing' WHERE id = $1", id);
    second = payouts::lock(tx, id)->resource.status;
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(first, "approved");
  EXPECT_EQ(second, "processing");
}

// A transition's change of the row is written with the transaction's other deferred rows; a second
// lock() of the payout writes it first, so the next transition starts from the row it left.
TEST_F(BatchRowLocks, ASecondLockSeesATransitionWrittenAtTheCommit) {
  const auto id = new_payout("pending");
  std::string in_table_before;
  std::optional<payouts::PayoutRow> second;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    payouts::lock_all(tx, {id});
    const auto after =
        payouts::transition(tx, *payouts::lock(tx, id), model::PayoutTrigger::start_screening);
    EXPECT_EQ(after->resource.status, "screening");
    in_table_before = tx.exec_params1("SELECT status FROM payouts WHERE id = $1", id)[0].c_str();
    second = payouts::lock(tx, id);
    // (Its outcome is read back from the table below, after the commit.)
    static_cast<void>(payouts::transition(tx, *second, model::PayoutTrigger::screening_clear,
                                          {.screening = payouts::ScreeningResult{false, {}, "v1"}}));
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(in_table_before, "pending");  // deferred to the end of the transaction
  ASSERT_TRUE(second.has_value());
  EXPECT_EQ(second->resource.status, "screening");
  EXPECT_EQ(database_->scalar("SELECT status || ' ' || screening_status || ' ' || "
                              "screening_list_version FROM payouts WHERE id = '" +
                              id + "'"),
            "approved clear v1");
}

// The change is computed from the row the caller read; if the row is no longer in that status
// when the change is written, the transaction fails and nothing of it is kept.
TEST_F(BatchRowLocks, ATransitionFromARowChangedSinceItWasReadFailsTheTransaction) {
  const auto id = new_payout("pending");
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    const auto payout = payouts::lock(tx, id);
    tx.exec_params("UPDATE payouts SET status = 'screening' WHERE id = $1", id);
    // (What matters is the commit, which the deferred change fails.)
    static_cast<void>(payouts::transition(tx, *payout, model::PayoutTrigger::start_screening));
    return model::ok_status();
  });
  EXPECT_FALSE(committed.ok());
  EXPECT_EQ(database_->scalar("SELECT status FROM payouts WHERE id = '" + id + "'"), "pending");
  EXPECT_EQ(
      database_->scalar("SELECT count(*) FROM resource_transitions WHERE resource_id = '" + id + "'"),
      "0");
}

TEST_F(BatchRowLocks, ARowTakenInARolledBackSavepointIsReadAgainAndStaysLocked) {
  const auto id = new_payout();
  std::string after_rollback;
  bool lockable_after_rollback = true;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    payouts::lock_all(tx, {id});
    tx.exec0("SAVEPOINT message");
    {
      infra::pg::SavepointHooks hooks;  // not kept: discarded with the savepoint
      EXPECT_EQ(payouts::lock(tx, id)->resource.status, "approved");
      tx.exec_params("UPDATE payouts SET status = 'processing' WHERE id = $1", id);
    }
    tx.exec0("ROLLBACK TO SAVEPOINT message");
    after_rollback = payouts::lock(tx, id)->resource.status;
    lockable_after_rollback = lockable(id);
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok());
  EXPECT_EQ(after_rollback, "approved");
  EXPECT_FALSE(lockable_after_rollback);
}

TEST_F(BatchRowLocks, OutsideAPoolTransactionNothingIsKept) {
  const auto id = new_payout();
  auto connection = database_->connect();
  pqxx::work tx(*connection);
  payouts::lock_all(tx, {id});
  tx.exec_params("UPDATE payouts SET status = 'processing' WHERE id = $1", id);
  EXPECT_EQ(payouts::lock(tx, id)->resource.status, "processing");
}

TEST_F(BatchRowLocks, AFailingMessageIsIsolatedAndTheRestAreAppliedOnceOnCurrentRows) {
  const std::vector<std::string> ids{new_payout(), new_payout(), new_payout()};
  auto batch = batch_of(ids, {0, 1, 2});
  std::vector<int> sequences_read;
  const auto applied = apply_batch(batch, [&](pqxx::work& tx, std::size_t index) {
    const auto payout = payouts::lock(tx, ids[index]);
    sequences_read.push_back(payout->event_sequence);
    tx.exec_params("UPDATE payouts SET event_sequence = event_sequence + 1 WHERE id = $1",
                   ids[index]);
    if (index == 1) return model::Status(model::Error::make(model::ErrorCode::internal_error, "x"));
    return model::ok_status();
  });
  ASSERT_TRUE(applied.ok());
  EXPECT_EQ(batch.outcomes(),
            (std::vector<infra::kafka::HandlerOutcome>{infra::kafka::HandlerOutcome::done,
                                                       infra::kafka::HandlerOutcome::retry,
                                                       infra::kafka::HandlerOutcome::done}));
  // The fast pass (0, then 1 fails) rolled back; the pass with savepoints read every row anew.
  EXPECT_EQ(sequences_read, (std::vector<int>{1, 1, 1, 1, 1}));
  EXPECT_EQ(sequence_of(ids[0]), 2);
  EXPECT_EQ(sequence_of(ids[1]), 1);
  EXPECT_EQ(sequence_of(ids[2]), 2);
}

// A new intent is written at the commit; a second message of the payout in the same transaction
// reads that intent (begin() writes the pending ones first) instead of recording another.
TEST_F(BatchRowLocks, ABroadcastIntentRecordedAtTheCommitIsFoundByTheSameTransaction) {
  const auto id = new_payout("processing");
  std::string in_table_before;
  std::optional<broadcasts::Broadcast> found;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    EXPECT_TRUE(broadcasts::record_intent(tx, id).written);
    in_table_before =
        tx.exec_params1("SELECT count(*) FROM payout_broadcasts WHERE payout_id = $1", id)[0]
            .c_str();
    found = broadcasts::begin(tx, id);
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  EXPECT_EQ(in_table_before, "0");
  ASSERT_TRUE(found.has_value());
  EXPECT_FALSE(found->written);
  EXPECT_EQ(found->reference, id);
  EXPECT_EQ(broadcasts_of(id), "1 none");
}

// An intent recorded for a payout that has one already fails the transaction.
TEST_F(BatchRowLocks, ASecondNewIntentOfAPayoutFailsTheTransaction) {
  const auto id = new_payout("processing");
  database_->scalar("INSERT INTO payout_broadcasts (payout_id, reference) VALUES ('" + id + "', '" +
                    id + "') RETURNING 1");
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    broadcasts::record_intent(tx, id);
    return model::ok_status();
  });
  EXPECT_FALSE(committed.ok());
}

// An outcome found with the payouts' lock (lock_all_with_broadcasts) is written at the commit; a
// second finish() of the payout in the same transaction finds it (it writes the pending ones
// first) and writes nothing; an attempt kept with its outcome recorded changes nothing.
TEST_F(BatchRowLocks, AnOutcomeRecordedAtTheCommitIsFoundByTheSameTransaction) {
  const auto open = new_payout("processing");
  const auto done = new_payout("processing");
  database_->scalar(
      "INSERT INTO payout_broadcasts (payout_id, reference, outcome, tx_hash) "
      "VALUES ('" +
      open + "', '" + open + "', NULL, NULL), ('" + done + "', '" + done +
      "', 'broadcast', '0xfirst') RETURNING 1");
  std::string in_table_before;
  std::optional<broadcasts::Broadcast> first, second, recorded;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    payouts::lock_all_with_broadcasts(tx, {open, done});
    first = broadcasts::finish(tx, open, true, "0xnew", "");
    in_table_before = tx.exec_params1(
                            "SELECT coalesce(outcome, 'none') FROM payout_broadcasts "
                            "WHERE payout_id = $1",
                            open)[0]
                          .c_str();
    second = broadcasts::finish(tx, open, false, "", "late");
    recorded = broadcasts::finish(tx, done, true, "0xagain", "");
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  EXPECT_EQ(in_table_before, "none");
  ASSERT_TRUE(first && second && recorded);
  EXPECT_TRUE(first->written);
  EXPECT_FALSE(second->written);
  EXPECT_EQ(second->outcome, "broadcast");
  EXPECT_EQ(second->tx_hash, "0xnew");
  EXPECT_FALSE(recorded->written);
  EXPECT_EQ(recorded->tx_hash, "0xfirst");
  EXPECT_EQ(database_->scalar("SELECT string_agg(outcome || ' ' || tx_hash, ',' ORDER BY "
                              "tx_hash) FROM payout_broadcasts WHERE payout_id IN ('" +
                              open + "', '" + done + "')"),
            "broadcast 0xfirst,broadcast 0xnew");
}

// keep_attempt() told where the attempt's columns start in the payout's row (as
// lock_all_with_broadcasts' caller passes it): begin() then finds the attempt as it was kept, by
// name. A row with a column after the attempt's is refused: the kept row is read from its end.
TEST_F(BatchRowLocks, AnAttemptKeptFromWhereItsColumnsStartIsTheOneBeginFinds) {
  namespace sql = infra::store::sql;
  constexpr sql::Text kPayoutColumns = "p.id, p.status";
  const auto id = new_payout("processing");
  database_->scalar("INSERT INTO payout_broadcasts (payout_id, reference) VALUES ('" + id +
                    "', 'ref_kept') RETURNING 1");
  const auto from = std::string(" FROM payouts p JOIN payout_broadcasts b ON b.payout_id = p.id ") +
                    "WHERE p.id = $1";
  const std::string attempt_columns(broadcasts::kKeptAttemptColumns.view());
  std::optional<broadcasts::Broadcast> found;
  const auto committed = pool_->transact([&](pqxx::work& tx) -> model::Status {
    const auto row = tx.exec_params1(
        "SELECT " + std::string(kPayoutColumns.view()) + ", " + attempt_columns + from, id);
    broadcasts::keep_attempt(tx, id, row, sql::column_count(kPayoutColumns));
    tx.exec_params0("UPDATE payout_broadcasts SET reference = 'ref_changed' WHERE payout_id = $1",
                    id);
    found = broadcasts::begin(tx, id);
    const auto longer =
        tx.exec_params1("SELECT p.id, " + attempt_columns + ", p.status" + from, id);
    EXPECT_THROW(broadcasts::keep_attempt(tx, id, longer, 1), std::logic_error);
    return model::ok_status();
  });
  ASSERT_TRUE(committed.ok()) << committed.error().message;
  ASSERT_TRUE(found.has_value());
  EXPECT_EQ(found->reference, "ref_kept");
  EXPECT_FALSE(found->outcome.has_value());
  EXPECT_FALSE(found->written);
}

// Execution's batch with one payout's approval twice: one transition, one intent, one outcome and
// one payouts.broadcast message per payout, and no message counted as failing.
TEST_F(BatchRowLocks, AnExecutionBatchRecordsOneIntentPerPayoutWithAMessageTwice) {
  const std::vector<std::string> ids{new_payout(), new_payout()};
  auto batch = batch_of({ids[0], ids[0], ids[1]}, {0, 0, 1},
                        infra::runtime::lock_resources<payouts::lock_all_with_broadcasts>);
  const infra::chain::ChainAdapters adapters("");
  with_context([&](infra::runtime::WorkerContext& context) {
    workers::execution::execute_payouts(context, adapters, batch);
    return 0;
  });
  EXPECT_EQ(batch.outcomes(),
            std::vector<infra::kafka::HandlerOutcome>(3, infra::kafka::HandlerOutcome::done));
  for (const auto& id : ids) {
    EXPECT_EQ(broadcasts_of(id), "1 broadcast");
    EXPECT_EQ(database_->scalar("SELECT status FROM payouts WHERE id = '" + id + "'"),
              "processing");
    EXPECT_EQ(database_->scalar("SELECT count(*) FROM resource_transitions WHERE resource_id = '" + id +
                                "' AND to_status = 'processing'"),
              "1");
    EXPECT_EQ(database_->scalar("SELECT count(*) FROM outbox WHERE topic = 'payouts.broadcast' "
                                "AND message_key = '" +
                                id + "'"),
              "1");
  }
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM message_failures WHERE resource_id IN ('" +
                              ids[0] + "', '" + ids[1] + "')"),
            "0");
}

}  // namespace
}  // namespace payrail::testing
