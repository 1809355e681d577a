// How the pool's sessions plan statements, read from PostgreSQL's own count of each prepared
// statement's plans (pg_prepared_statements): a statement is planned generically, once per
// connection, unless it is declared pg::Plan::custom (the list reads, whose cursor becomes an
// index condition only with its value known); then it is planned at each execution, and only its
// own transaction plans so.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "infra/pg/pool.h"
#include "infra/repositories/api_keys.h"
#include "infra/repositories/payouts.h"
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
  infra::repositories::ListQuery query;
  query.starting_after = "po_plans_cursor";
  const auto page = infra::repositories::payouts::list(*pool_, "org_plans", model::Mode::test,
                                                       std::nullopt, query);
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(plans_of("payouts_list"), (std::pair<long, long>{0, 1}));
}

// Authentication reads each key's organization by its primary key. The generic plan of the plain
// join hashed the keys and read every organization, for every request.
TEST_F(PlanModes, AKeyLookupReadsOnlyTheOrganizationsOfItsKeys) {
  database_->scalar(
      "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) "
      "SELECT 'org_plans_' || n, 'Test Ltd', 'Test', 'CA', 'owner' "
      "FROM generate_series(1, 2000) AS n");
  database_->scalar(
      "INSERT INTO api_keys (id, org_id, mode, prefix, secret_hash, scopes) "
      "SELECT 'key_plans_' || n, 'org_plans_' || n, 'test', 'pk_test_plans_' || n, "
      "sha256(n::text::bytea), '{payouts:write}' FROM generate_series(1, 2000) AS n");
  database_->scalar("ANALYZE organizations; ANALYZE api_keys");
  ASSERT_TRUE(infra::repositories::api_keys::find_by_prefixes(*pool_, {"pk_test_plans"}).ok());
  const auto plan = pool_->transact([&](pqxx::work& tx) -> model::Result<std::string> {
    std::string text;
    for (const auto& row :
         tx.exec("EXPLAIN EXECUTE api_keys_find_by_prefixes('{pk_test_plans}')")) {
      text += row[0].as<std::string>() + "\n";
    }
    return text;
  });
  ASSERT_TRUE(plan.ok());
  EXPECT_NE(plan->find("Index Scan using organizations_pkey"), std::string::npos) << *plan;
  EXPECT_EQ(plan->find("Seq Scan on organizations"), std::string::npos) << *plan;
}

}  // namespace
}  // namespace payrail::testing
