// Rotating the data key against a real database: endpoint secrets and beneficial owners' names
// and dates of birth sealed with the old key are re-sealed by `payrail data-key-reseal` (run with
// the new key and the old one as previous), after which the new key alone opens every one of
// them and the values are unchanged.
#include <gtest/gtest.h>

#include <algorithm>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/webhooks/webhook_endpoints.h"
#include "tests/support/database.h"
#include "tests/support/process.h"

namespace payrail::testing {
namespace {

namespace crypto = infra::crypto;

TEST(DataKeyReseal, ARotationEndsWithEverySecretUnderTheNewKey) {
  TestDatabase database;
  database.scalar(
      "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject) VALUES "
      "('org_rotate1', 'Rotate Ltd', 'Rotate', 'CA', 'owner') RETURNING id");
  const auto old_hex = crypto::hex_encode(crypto::random_bytes(32));
  const auto new_hex = crypto::hex_encode(crypto::random_bytes(32));
  infra::pg::Pool pool({.url = database.url(), .max_connections = 1});
  std::vector<std::string> secrets;
  for (int i = 0; i < 3; ++i) {
    auto created =
        infra::store::webhook_endpoints::create(pool,
                                                {"org_rotate1",
                                                 model::Mode::test,
                                                 "https://example.com/hook" + std::to_string(i),
                                                 {"payout.completed"}},
                                                crypto::DataKey::from_hex(old_hex)->bytes());
    ASSERT_TRUE(created.ok()) << created.error().message;
    secrets.push_back(created->secret);
  }
  // Two beneficial owners of a submission, sealed with the old key.
  database.scalar(
      "INSERT INTO kyb_submissions (id, org_id, status, legal_name, registration_no, "
      "incorporation_country) VALUES ('kyb_rotate1', 'org_rotate1', 'pending', 'Rotate Ltd', "
      "'123', 'CA') RETURNING id");
  const auto old_key = *crypto::DataKey::from_hex(old_hex);
  for (int position = 0; position < 2; ++position) {
    const auto name = "Owner " + std::to_string(position);
    const auto dob = "1980-01-0" + std::to_string(position + 1);
    secrets.push_back(name);
    secrets.push_back(dob);
    database.scalar(
        "INSERT INTO kyb_beneficial_owners (submission_id, position, name_sealed, "
        "dob_sealed, ownership_pct, country) VALUES ('kyb_rotate1', " +
        std::to_string(position) + ", '\\x" + crypto::hex_encode(*old_key.seal(name)) + "', '\\x" +
        crypto::hex_encode(*old_key.seal(dob)) + "', 30, 'CA') RETURNING 1");
  }
  const auto open_all = [&](const crypto::DataKey& key) {
    std::vector<std::string> opened;
    auto connection = database.connect();
    pqxx::work tx(*connection);
    for (const auto& row : tx.exec(
             "SELECT secret_ciphertext FROM webhook_endpoints UNION ALL SELECT name_sealed FROM "
             "kyb_beneficial_owners UNION ALL SELECT dob_sealed FROM kyb_beneficial_owners")) {
      auto secret = key.open(pqxx::binarystring(row[0]).str());
      opened.push_back(secret.ok() ? *secret : "unreadable");
    }
    return opened;
  };
  const auto new_only = *crypto::DataKey::from_hex(new_hex);
  EXPECT_EQ(open_all(new_only), std::vector<std::string>(7, "unreadable"));

  // Without the previous key nothing can be re-sealed, and nothing is changed.
  auto [refused, refused_output] = run_cli(
      {{"PAYRAIL_DATABASE_URL", database.url()}, {"PAYRAIL_WEBHOOK_ENCRYPTION_KEY", new_hex}},
      {"data-key-reseal"});
  EXPECT_EQ(refused, 1) << refused_output;
  EXPECT_NE(refused_output.find("7 values open with neither key"), std::string::npos)
      << refused_output;

  auto [code, output] = run_cli({{"PAYRAIL_DATABASE_URL", database.url()},
                                 {"PAYRAIL_WEBHOOK_ENCRYPTION_KEY", new_hex},
                                 {"PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS", old_hex}},
                                {"data-key-reseal"});
  ASSERT_EQ(code, 0) << output;
  for (const auto* line : {"webhook_endpoints.secret_ciphertext: 3 re-sealed, 0 unreadable",
                           "kyb_beneficial_owners.name_sealed: 2 re-sealed, 0 unreadable",
                           "kyb_beneficial_owners.dob_sealed: 2 re-sealed, 0 unreadable"}) {
    EXPECT_NE(output.find(line), std::string::npos) << output;
  }
  auto opened = open_all(new_only);
  std::sort(opened.begin(), opened.end());
  std::sort(secrets.begin(), secrets.end());
  EXPECT_EQ(opened, secrets);
}

}  // namespace
}  // namespace payrail::testing
