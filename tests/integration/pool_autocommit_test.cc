// Pool::autocommit against a real database: its statements run without BEGIN and COMMIT, each in
// a transaction of its own, so a statement stays committed whatever the work does next; the
// record of an answer (idempotency::complete here; the grouped answers use complete_many, the
// same rule: tests/integration/create_answers_test.cc) keeps the first answer recorded for a key
// and says whether it recorded this one; a lost connection reruns the work
// only when the caller allows it.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/idempotency.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace idempotency = infra::store::idempotency;

class PoolAutocommit : public DatabaseSuite<2> {
 protected:
  static void SetUpTestSuite() {
    DatabaseSuite::SetUpTestSuite();
    database_->add_organization("org_autocommit");
  }

  // Whether the statement runs in a transaction of its own: its start is its transaction's start.
  static bool own_transaction(pqxx::transaction_base& tx) {
    tx.exec("SELECT pg_sleep(0.002)");
    return tx.exec1("SELECT statement_timestamp() = transaction_timestamp()")[0].as<bool>();
  }
};

TEST_F(PoolAutocommit, EachStatementIsATransactionOfItsOwn) {
  const auto autocommitted = pool_->autocommit(
      [](pqxx::nontransaction& tx) -> model::Result<bool> { return own_transaction(tx); });
  ASSERT_TRUE(autocommitted.ok());
  EXPECT_TRUE(*autocommitted);
  const auto transacted =
      pool_->transact([](pqxx::work& tx) -> model::Result<bool> { return own_transaction(tx); });
  ASSERT_TRUE(transacted.ok());
  EXPECT_FALSE(*transacted);  // the contrast: inside BEGIN ... COMMIT it is not
}

TEST_F(PoolAutocommit, AWriteStaysCommittedWhenTheWorkThenFails) {
  database_->scalar("CREATE TABLE autocommit_writes (n integer)");
  const auto failed = pool_->autocommit([](pqxx::nontransaction& tx) -> model::Status {
    tx.exec0("INSERT INTO autocommit_writes VALUES (1)");
    return model::Error::make(model::ErrorCode::internal_error, "fails after the write");
  });
  EXPECT_FALSE(failed.ok());
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM autocommit_writes"), "1");
}

TEST_F(PoolAutocommit, RecordingAnAnswerKeepsTheFirstAndSaysWhetherItWasThisOne) {
  const idempotency::Scope scope{"org_autocommit", model::Mode::test, "key_autocommit"};
  const auto claimed = pool_->transact([&](pqxx::work& tx) -> model::Result<bool> {
    return idempotency::claim(tx, scope, "POST /v1/payouts", std::string(32, 'h'), "po_first");
  });
  ASSERT_TRUE(claimed.ok());
  ASSERT_TRUE(*claimed);
  const auto record = [&](const std::string& body) {
    return pool_->autocommit([&](pqxx::nontransaction& tx) -> model::Result<bool> {
      return idempotency::complete(tx, scope, 201, body, "req_" + body);
    });
  };
  const auto first = record("first");
  ASSERT_TRUE(first.ok());
  EXPECT_TRUE(*first);
  const auto second = record("second");
  ASSERT_TRUE(second.ok());
  EXPECT_FALSE(*second);
  const auto stored = idempotency::find(*pool_, scope);
  ASSERT_TRUE(stored.ok());
  ASSERT_TRUE(stored->has_value());
  EXPECT_EQ((*stored)->response_body, "first");
  EXPECT_EQ((*stored)->response_request_id, "req_first");
}

// A connection lost during the work (here the backend is terminated under it) may have lost it
// after a statement committed: by default the work runs again on a fresh connection; with
// Rerun::never it runs once and the outcome is reported as in doubt.
TEST_F(PoolAutocommit, ALostConnectionRerunsTheWorkUnlessTheCallerSaysNever) {
  using Rerun = infra::pg::Pool::Rerun;
  const auto run = [&](Rerun rerun, int& calls) {
    return pool_->autocommit(
        [&](pqxx::nontransaction& tx) -> model::Status {
          if (++calls == 1) tx.exec("SELECT pg_terminate_backend(pg_backend_pid())");
          return model::ok_status();
        },
        rerun);
  };
  int rerun_calls = 0;
  EXPECT_TRUE(run(Rerun::after_lost_connection, rerun_calls).ok());
  EXPECT_EQ(rerun_calls, 2);
  int once_calls = 0;
  const auto once = run(Rerun::never, once_calls);
  ASSERT_FALSE(once.ok());
  EXPECT_EQ(once.error().code, model::ErrorCode::service_unavailable);
  EXPECT_NE(once.error().message.find("lost while committing"), std::string::npos)
      << once.error().message;
  EXPECT_EQ(once_calls, 1);
}

}  // namespace
}  // namespace payrail::testing
