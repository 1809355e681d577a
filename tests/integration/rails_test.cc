// Live corridors and collection rails per organization, through the operator CLI against a real
// database: enabling is idempotent, recorded with the operator's name in the audit trail,
// listed, and undone by disabling; bad input is refused without touching anything.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/organizations/rails.h"
#include "tests/support/database.h"
#include "tests/support/process.h"

namespace payrail::testing {
namespace {

namespace rails = infra::store::rails;

class RailsCommands : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    database_->scalar(
        "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) VALUES "
        "('org_rails1', 'Rails Ltd', 'Rails', 'CA', 'owner') RETURNING id");
  }
  static void TearDownTestSuite() { delete database_; }

  static std::pair<int, std::string> cli(const std::vector<std::string>& arguments) {
    return run_cli({{"PAYRAIL_DATABASE_URL", database_->url()}, {"PAYRAIL_OPERATOR", "ops-alice"}},
                   arguments);
  }
  static bool enabled(rails::RailKind kind, const std::string& name) {
    infra::pg::Pool pool({.url = database_->url(), .max_connections = 1});
    return rails::is_enabled(pool, "org_rails1", kind, name).value();
  }

  inline static TestDatabase* database_ = nullptr;
};

TEST_F(RailsCommands, EnableListAuditDisable) {
  EXPECT_FALSE(enabled(rails::RailKind::fiat_corridor, "MX"));
  auto [code, output] = cli({"corridor-enable", "--org", "org_rails1", "--country", "MX"});
  ASSERT_EQ(code, 0) << output;
  EXPECT_TRUE(enabled(rails::RailKind::fiat_corridor, "MX"));
  EXPECT_FALSE(enabled(rails::RailKind::collection_rail, "MX"));  // kinds never mix

  // Idempotent: a second enable changes nothing and is not audited twice.
  ASSERT_EQ(cli({"corridor-enable", "--org", "org_rails1", "--country", "MX"}).first, 0);
  ASSERT_EQ(
      cli({"rail-enable", "--org", "org_rails1", "--method", "ach", "--operator", "ops-bob"}).first,
      0);
  EXPECT_TRUE(enabled(rails::RailKind::collection_rail, "ach"));

  const auto listed = cli({"rails", "--org", "org_rails1"}).second;
  EXPECT_NE(listed.find("fiat_corridor\tMX\tenabled by ops-alice"), std::string::npos) << listed;
  EXPECT_NE(listed.find("collection_rail\tach\tenabled by ops-bob"), std::string::npos) << listed;

  ASSERT_EQ(cli({"corridor-disable", "--org", "org_rails1", "--country", "MX"}).first, 0);
  EXPECT_FALSE(enabled(rails::RailKind::fiat_corridor, "MX"));
  const auto again = cli({"corridor-disable", "--org", "org_rails1", "--country", "MX"});
  EXPECT_EQ(again.first, 1);
  EXPECT_NE(again.second.find("was not enabled"), std::string::npos) << again.second;

  const auto audit = cli({"audit-log", "--org", "org_rails1"}).second;
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM audit_log WHERE org_id = 'org_rails1'"), "3");
  EXPECT_NE(audit.find("ops-alice\trail.disabled\torg_rails1\tfiat_corridor MX"), std::string::npos)
      << audit;
  EXPECT_NE(audit.find("ops-bob\trail.enabled\torg_rails1\tcollection_rail ach"), std::string::npos)
      << audit;
}

TEST_F(RailsCommands, BadInputIsRefusedAndChangesNothing) {
  const auto before = database_->scalar("SELECT count(*) FROM organization_rails");
  EXPECT_NE(cli({"corridor-enable", "--org", "org_rails1", "--country", "mx"}).first, 0);
  EXPECT_NE(cli({"rail-enable", "--org", "org_rails1", "--method", "wire"}).first, 0);
  // Well formed but not in the corridor table: JP has no payout corridor, clabe is a payout
  // method and not a collection rail.
  const auto japan = cli({"corridor-enable", "--org", "org_rails1", "--country", "JP"});
  EXPECT_NE(japan.first, 0);
  EXPECT_NE(japan.second.find("must be one of AR|BR|CA|CO|DE|ES|FR|GB|IN|MX|NG|PH|US"),
            std::string::npos)
      << japan.second;
  EXPECT_NE(cli({"rail-enable", "--org", "org_rails1", "--method", "clabe"}).first, 0);
  const auto missing = cli({"corridor-enable", "--org", "org_nosuch", "--country", "BR"});
  EXPECT_NE(missing.first, 0);
  EXPECT_NE(missing.second.find("No such organization"), std::string::npos) << missing.second;
  EXPECT_EQ(database_->scalar("SELECT count(*) FROM organization_rails"), before);
}

}  // namespace
}  // namespace payrail::testing
