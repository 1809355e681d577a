// How the pool's sessions plan statements, read from PostgreSQL's own count of each prepared
// statement's plans (pg_prepared_statements): a statement is planned generically, once per
// connection, unless it is declared pg::Plan::custom (the list reads, whose cursor becomes an
// index condition only with its value known); then it is planned at each execution, and only its
// own transaction plans so.
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <thread>
#include <utility>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/money/spend.h"
#include "infra/store/organizations/api_keys.h"
#include "infra/store/payouts/payouts.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace pg = infra::pg;

// One connection: every transaction below runs on the session whose statements it counts.
class PlanModes : public DatabaseSuite<1> {
 protected:
  static void SetUpTestSuite() {
    DatabaseSuite::SetUpTestSuite();
    database_->add_organization("org_plans");
  }

  // How many generic and custom plans the session made for the prepared statement `name`.
  static std::pair<long, long> plans_of(const std::string& name) {
    const auto plans = pool_->transact([&](pqxx::work& tx) -> model::Result<std::pair<long, long>> {
      const auto row = tx.exec_params1(
          "SELECT generic_plans, custom_plans FROM pg_prepared_statements WHERE name = $1", name);
      return std::pair<long, long>{row[0].as<long>(), row[1].as<long>()};
    });
    EXPECT_TRUE(plans.ok());
    return plans.ok() ? *plans : std::pair<long, long>{-1, -1};
  }

  // Runs `statement` (one parameter) `times` times, each in a transaction of its own.
  static void run(const pg::Statement& statement, int times) {
    for (int i = 0; i < times; ++i) {
      const auto ran = pool_->transact([&](pqxx::work& tx) -> model::Status {
        pg::exec(tx, statement, std::string("org_plans"));
        return model::ok_status();
      });
      ASSERT_TRUE(ran.ok());
    }
  }

  // The generic plan of the prepared statement `execute` names (its session's, as the pool runs
  // it).
  static std::string generic_plan(const std::string& execute) {
    return generic_plan(*pool_, execute);
  }
  static std::string generic_plan(pg::Pool& pool, const std::string& execute) {
    const auto plan = pool.transact([&](pqxx::work& tx) -> model::Result<std::string> {
      std::string text;
      for (const auto& row : tx.exec("EXPLAIN EXECUTE " + execute)) {
        text += row[0].as<std::string>() + "\n";
      }
      return text;
    });
    EXPECT_TRUE(plan.ok());
    return plan.ok() ? *plan : "";
  }

  // 2,000 organizations, each with an API key and limits of its own, their statistics taken.
  static void add_many_organizations() {
    database_->scalar(
        "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) "
        "SELECT 'org_plans_' || n, 'Test Ltd', 'Test', 'CA', 'owner' "
        "FROM generate_series(1, 2000) AS n ON CONFLICT DO NOTHING");
    database_->scalar(
        "INSERT INTO api_keys (id, org_id, mode, prefix, secret_hash, scopes) "
        "SELECT 'key_plans_' || n, 'org_plans_' || n, 'test', 'pk_test_plans_' || n, "
        "sha256(n::text::bytea), '{payouts:write}' FROM generate_series(1, 2000) AS n "
        "ON CONFLICT DO NOTHING");
    database_->scalar(
        "INSERT INTO organization_limits (org_id, mode, daily_usd) "
        "SELECT 'org_plans_' || n, 'test', 1000 FROM generate_series(1, 2000) AS n "
        "ON CONFLICT DO NOTHING");
    database_->scalar("ANALYZE organizations; ANALYZE api_keys; ANALYZE organization_limits");
  }
};

constexpr pg::Statement kCount{"plan_modes_count",
                               "SELECT count(*) FROM payouts WHERE org_id = $1"};
constexpr pg::Statement kCountCustom{
    "plan_modes_count_custom", "SELECT count(*) FROM payouts WHERE org_id = $1", pg::Plan::custom};

TEST_F(PlanModes, AStatementRunsItsConnectionsGenericPlan) {
  run(kCount, 3);
  // PostgreSQL's default would plan each of the first five executions with its values.
  EXPECT_EQ(plans_of("plan_modes_count"), (std::pair<long, long>{3, 0}));
}

TEST_F(PlanModes, ACustomStatementIsPlannedAtEachExecutionWithItsValues) {
  run(kCountCustom, 3);
  EXPECT_EQ(plans_of("plan_modes_count_custom"), (std::pair<long, long>{0, 3}));
}

TEST_F(PlanModes, ACustomStatementLeavesTheNextTransactionGeneric) {
  run(kCount, 1);
  const auto before = plans_of("plan_modes_count");
  run(kCountCustom, 1);
  run(kCount, 1);
  EXPECT_EQ(plans_of("plan_modes_count"), (std::pair<long, long>{before.first + 1, before.second}));
}

TEST_F(PlanModes, AListPageIsPlannedWithItsCursor) {
  infra::store::ListQuery query;
  query.starting_after = "po_plans_cursor";
  const auto page =
      infra::store::payouts::list(*pool_, "org_plans", model::Mode::test, std::nullopt, query);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(plans_of("payouts_list"), (std::pair<long, long>{0, 1}));
}

// Statements that take an array of keys read each key's row by its index. The generic plan of a
// join expects ten rows from any array, hashes them and reads the whole other table: for every
// request (authentication), for every screening batch (the organizations' limits).
TEST_F(PlanModes, AKeyLookupReadsOnlyTheOrganizationsOfItsKeys) {
  add_many_organizations();
  ASSERT_TRUE(infra::store::api_keys::find_by_prefixes(*pool_, {"pk_test_plans"}).ok());
  const auto plan = generic_plan("api_keys_find_by_prefixes('{pk_test_plans}')");
  EXPECT_NE(plan.find("Index Scan using organizations_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan on organizations"), std::string::npos) << plan;
}

TEST_F(PlanModes, TheLimitsOfABatchAreReadOnlyForItsOrganizations) {
  add_many_organizations();
  namespace spend = infra::store::spend;
  const std::vector<spend::Scope> scopes = {{"org_plans_1", model::Mode::test},
                                            {"org_plans_1", model::Mode::live},
                                            {"org_plans_2", model::Mode::test}};
  const auto read = pool_->transact([&](pqxx::work& tx) -> model::Result<spend::LimitsByScope> {
    return spend::effective_limits(tx, scopes);
  });
  ASSERT_TRUE(read.ok());
  // Each scope has its own row's limits, or the mode's defaults without one.
  const auto daily_of = [&](const spend::Scope& scope) {
    return model::format_decimal(read->at(scope).daily_usd);
  };
  EXPECT_EQ(daily_of(scopes[0]), "1000");
  EXPECT_EQ(daily_of(scopes[1]),
            model::format_decimal(model::default_payout_limits(model::Mode::live).daily_usd));
  EXPECT_EQ(daily_of(scopes[2]), "1000");
  const auto plan = generic_plan("spend_overrides_of('{org_plans_1}', '{test}')");
  EXPECT_NE(plan.find("Index Scan using organization_limits_pkey"), std::string::npos) << plan;
  EXPECT_EQ(plan.find("Seq Scan on organization_limits"), std::string::npos) << plan;
}

// A generic plan is made for the size its tables had when the statement first ran, and nothing
// but an ANALYZE of them (autovacuum's, in its own time) makes it again. On a new database every
// statement is planned on empty tables, so the pool discards a session's plans replan_interval
// after it opened (then at doubling intervals): each is planned again for the tables as they are.
// The probe's rows are wide, like a payout's: ten pages of them (what the planner assumes of an
// empty table) are cheaper to read whole than through the index.
constexpr pg::Statement kProbe{"replan_probe_find_many",
                               "SELECT id FROM replan_probe WHERE id = ANY($1::text[])"};

TEST_F(PlanModes, ASessionPlansAgainForTablesThatGrewSinceItsPlan) {
  constexpr auto kReplanInterval = std::chrono::seconds(3);
  database_->scalar(
      "CREATE TABLE replan_probe (id text PRIMARY KEY, body char(400)) "
      "WITH (autovacuum_enabled = off)");
  pg::Pool pool(
      {.url = database_->url(), .max_connections = 1, .replan_interval = kReplanInterval});
  const auto plan_of_probe = [&] {
    const auto ran = pool.transact([&](pqxx::work& tx) -> model::Status {
      pg::exec(tx, kProbe, std::string("{a}"));
      return model::ok_status();
    });
    EXPECT_TRUE(ran.ok());
    return generic_plan(pool, "replan_probe_find_many('{a}')");
  };
  // The session opens within the first call: its first replan is due between these plus the
  // interval.
  const auto before_open = std::chrono::steady_clock::now();
  const auto empty = plan_of_probe();
  const auto after_open = std::chrono::steady_clock::now();
  ASSERT_NE(empty.find("Seq Scan on replan_probe"), std::string::npos) << empty;

  database_->scalar(
      "INSERT INTO replan_probe SELECT 'id_' || n, 'body' FROM generate_series(1, 20000) AS n");
  const auto grown = plan_of_probe();
  if (std::chrono::steady_clock::now() - before_open < kReplanInterval) {
    EXPECT_NE(grown.find("Seq Scan on replan_probe"), std::string::npos)
        << "planned again before its interval (or by something else):\n"
        << grown;
  }

  std::this_thread::sleep_until(after_open + kReplanInterval + std::chrono::milliseconds(100));
  const auto replanned = plan_of_probe();
  EXPECT_NE(replanned.find("replan_probe_pkey"), std::string::npos) << replanned;
  EXPECT_EQ(replanned.find("Seq Scan on replan_probe"), std::string::npos) << replanned;
}

}  // namespace
}  // namespace payrail::testing
