// Migrations: applied in order and recorded; applying again changes nothing; a migration whose
// text changed after it was applied is refused (migrations are never edited after landing).
#include <gtest/gtest.h>

#include "infra/plumbing/pg/migrate.h"
#include "schemas/model/contract/contracts.h"
#include "tests/support/database.h"

namespace payrail::testing {
namespace {

TEST(Migrations, EveryEmbeddedMigrationIsRecordedInOrder) {
  TestDatabase database;
  const auto& migrations = model::sql_migrations();
  ASSERT_FALSE(migrations.empty());
  EXPECT_EQ(database.scalar("SELECT count(*) FROM schema_migrations"),
            std::to_string(migrations.size()));
  for (std::size_t i = 1; i < migrations.size(); ++i) {
    EXPECT_LT(migrations[i - 1].name, migrations[i].name) << "migrations must sort by file name";
  }
}

TEST(Migrations, ApplyingAgainChangesNothing) {
  TestDatabase database;
  const auto before = database.scalar(
      "SELECT string_agg(file_name || applied_at, ',') FROM "
      "schema_migrations");
  auto connection = database.connect();
  const auto status = infra::pg::apply_migrations(*connection);
  EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message);
  EXPECT_EQ(database.scalar("SELECT string_agg(file_name || applied_at, ',') FROM "
                            "schema_migrations"),
            before);
}

TEST(Migrations, AnEditedAppliedMigrationIsRefused) {
  TestDatabase database;
  const std::string first(model::sql_migrations()[0].name);
  database.scalar("UPDATE schema_migrations SET checksum = 'edited' WHERE file_name = '" + first +
                  "' RETURNING 1");
  auto connection = database.connect();
  const auto status = infra::pg::apply_migrations(*connection);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.error().message.find("edited after it was applied"), std::string::npos);
}

TEST(Migrations, AFreshDatabaseGetsTheWholeSchema) {
  TestDatabase template_clone;  // only to reach the cluster; the fresh database is created here
  const auto fresh = template_clone.name() + "_fresh";
  {
    auto admin = template_clone.connect();
    pqxx::nontransaction(*admin).exec("CREATE DATABASE " + fresh);
  }
  {
    pqxx::connection connection(test_database_url(fresh));
    const auto status = infra::pg::apply_migrations(connection);
    EXPECT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message);
    pqxx::nontransaction tx(connection);
    EXPECT_EQ(tx.exec("SELECT count(*) FROM schema_migrations")[0][0].as<std::size_t>(),
              model::sql_migrations().size());
  }
  auto admin = template_clone.connect();
  pqxx::nontransaction(*admin).exec("DROP DATABASE " + fresh + " WITH (FORCE)");
}

}  // namespace
}  // namespace payrail::testing
