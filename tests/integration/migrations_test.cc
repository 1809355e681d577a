// Migrations: applied in order and recorded; applying again changes nothing; a migration whose
// text changed after it was applied is refused (migrations are never edited after landing).
#include <gtest/gtest.h>

#include "infra/plumbing/crypto/crypto.h"
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


// The payouts' own log (payout_transitions, until 0016) is folded into the one transitions log:
// a database migrated up to the fold with payouts and their history, then migrated on, reads the
// same history back from resource_transitions, in order, with its times and the deciding member.
TEST(Migrations, ThePayoutsLogIsFoldedIntoTheOneTransitionsLogWithItsHistory) {
  TestDatabase template_clone;  // only to reach the cluster; the fresh database is created here
  const auto fresh = template_clone.name() + "_fold";
  {
    auto admin = template_clone.connect();
    pqxx::nontransaction(*admin).exec("CREATE DATABASE " + fresh);
  }
  {
    pqxx::connection connection(test_database_url(fresh));
    {
      pqxx::work tx(connection);
      tx.exec("CREATE TABLE schema_migrations (file_name text PRIMARY KEY, checksum text NOT "
              "NULL, applied_at timestamptz NOT NULL DEFAULT now())");
      for (const auto& migration : model::sql_migrations()) {
        if (std::string_view(migration.name) >= "0016") break;
        tx.exec(std::string(migration.content));
        tx.exec_params("INSERT INTO schema_migrations (file_name, checksum) VALUES ($1, $2)",
                       std::string(migration.name), infra::crypto::sha256_hex(migration.content));
      }
      tx.exec(R"sql(
INSERT INTO organizations (id, legal_name, display_name, country, owner_subject)
  VALUES ('org_fold', 'Fold Ltd', 'Fold', 'CA', 'owner');
INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, amount_usd,
                     approved_by)
  VALUES ('po_fold1', 'org_fold', 'test', 'processing', 12.5, 'USDC', 'polygon',
          '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 12.5, 'member-7'),
         ('po_fold2', 'org_fold', 'test', 'cancelled', 1, 'USDC', 'polygon',
          '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed', 1, NULL);
INSERT INTO payout_transitions (payout_id, from_status, to_status, trigger, occurred_at) VALUES
  ('po_fold1', NULL, 'pending', 'create', '2026-11-01 10:00:00+00'),
  ('po_fold2', NULL, 'pending', 'create', '2026-11-01 10:00:01+00'),
  ('po_fold1', 'pending', 'screening', 'start_screening', '2026-11-01 10:00:02+00'),
  ('po_fold1', 'screening', 'pending_approval', 'screening_over_limit', '2026-11-01 10:00:03+00'),
  ('po_fold2', 'pending', 'cancelled', 'cancel', '2026-11-01 10:00:04+00'),
  ('po_fold1', 'pending_approval', 'processing', 'approve', '2026-11-01 10:05:00+00');
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger)
  VALUES ('organization', 'org_fold', NULL, 'active', 'create');
)sql");
      tx.commit();
    }
    const auto status = infra::pg::apply_migrations(connection);
    ASSERT_TRUE(status.ok()) << (status.ok() ? "" : status.error().message);
    pqxx::nontransaction tx(connection);
    const auto history = [&](const std::string& payout_id) {
      return tx
          .exec("SELECT string_agg(coalesce(from_status, '-') || '>' || to_status || ':' || "
                "trigger || '@' || to_char(occurred_at AT TIME ZONE 'UTC', 'HH24:MI:SS') || "
                "coalesce('/' || actor, ''), ' ' ORDER BY id) AS history FROM "
                "resource_transitions WHERE resource_type = 'payout' AND resource_id = '" +
                payout_id + "'")[0]["history"]
          .as<std::string>();
    };
    EXPECT_EQ(history("po_fold1"),
              "->pending:create@10:00:00 pending>screening:start_screening@10:00:02 "
              "screening>pending_approval:screening_over_limit@10:00:03 "
              "pending_approval>processing:approve@10:05:00/member-7");
    EXPECT_EQ(history("po_fold2"),
              "->pending:create@10:00:01 pending>cancelled:cancel@10:00:04");
    EXPECT_EQ(tx.exec("SELECT count(*) AS rows FROM resource_transitions WHERE resource_type = "
                      "'organization'")[0]["rows"]
                  .as<int>(),
              1);
    EXPECT_EQ(tx.exec("SELECT to_regclass('payout_transitions') IS NULL AS gone")[0]["gone"]
                  .as<bool>(),
              true);
  }
  auto admin = template_clone.connect();
  pqxx::nontransaction(*admin).exec("DROP DATABASE " + fresh + " WITH (FORCE)");
}

}  // namespace
}  // namespace payrail::testing
