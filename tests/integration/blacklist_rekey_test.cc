// Blacklisted names stored before the ICU name normalization (key_version 'names/1', as the
// migration marks every earlier row and an older binary still writes them), against a real
// database: screening matches them by today's key at once (blacklist::Cache), and rekey_names()
// rewrites their keys in place, removing entries that became duplicates, so that removals by name
// and the per-payout lookup find them too.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/screening/blacklist.h"
#include "schemas/model/screening/name_key.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace blacklist = infra::store::blacklist;
using model::normalize_name;

class BlacklistRekey : public DatabaseSuite<2> {
 protected:
  void SetUp() override { database_->scalar("DELETE FROM screening_blacklist"); }

  // A row as a binary of the earlier normalization wrote it: its key, no key_version.
  static std::string add_old(const std::string& value, const std::string& old_key) {
    return database_->scalar(
        "INSERT INTO screening_blacklist (kind, value, normalized, reason) VALUES ('name', " +
        quoted(value) + ", " + quoted(old_key) + ", 'before the upgrade') RETURNING id");
  }
  static std::string quoted(const std::string& text) { return database_->connect()->quote(text); }
  static std::string key_of(const std::string& id) {
    return database_->scalar("SELECT normalized FROM screening_blacklist WHERE id = " + id);
  }
  static std::string count() {
    return database_->scalar("SELECT count(*) FROM screening_blacklist");
  }
  static std::shared_ptr<const blacklist::Entries> cached(blacklist::Cache& cache) {
    auto read = pool_->autocommit(
        [&](pqxx::nontransaction& tx) -> model::Result<std::shared_ptr<const blacklist::Entries>> {
          return cache.current(tx);
        });
    EXPECT_TRUE(read.ok());
    return read.ok() ? *read : nullptr;
  }
  static bool contains(const std::string& name) {
    auto found = pool_->transact([&](pqxx::work& tx) -> model::Result<bool> {
      return blacklist::contains(tx, "name", normalize_name(name));
    });
    return found.ok() && *found;
  }
};

// The earlier normalization split a word at a soft hyphen: "duro lopez ma nicolas".
TEST_F(BlacklistRekey, AnOldEntryMatchesAtOnceAndIsRekeyedInPlace) {
  const auto id = add_old("Nicolas Ma\u00ADduro Lopez", "duro lopez ma nicolas");
  blacklist::Cache cache;
  const auto entries = cached(cache);
  ASSERT_NE(entries, nullptr);
  EXPECT_TRUE(entries->contains("name", normalize_name("Nicolas Maduro Lopez")));
  EXPECT_TRUE(entries->contains("name", normalize_name("LOPEZ, Nic\u043Elas Ma\u200Dduro")));
  EXPECT_FALSE(contains("Nicolas Maduro Lopez"));  // the stored key is still the old one

  const auto rekeyed = blacklist::rekey_names(*pool_);
  ASSERT_TRUE(rekeyed.ok()) << rekeyed.error().message;
  EXPECT_EQ(rekeyed->rekeyed, 1);
  EXPECT_EQ(rekeyed->merged, 0);
  EXPECT_EQ(key_of(id), normalize_name("Nicolas Maduro Lopez"));
  EXPECT_EQ(database_->scalar("SELECT key_version FROM screening_blacklist WHERE id = " + id),
            model::name_key_version());
  EXPECT_TRUE(contains("Nicolas Maduro Lopez"));

  const auto again = blacklist::rekey_names(*pool_);  // nothing left to do
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->rekeyed + again->merged, 0);
  const auto removed = blacklist::remove(*pool_, "name", normalize_name("Nicolas Maduro Lopez"));
  ASSERT_TRUE(removed.ok());
  EXPECT_TRUE(*removed);
  EXPECT_EQ(count(), "0");
}

TEST_F(BlacklistRekey, OldEntriesThatBecameOneAreMerged) {
  const auto first = add_old("Ana Ma\u00ADria Payrailtest", "ana ma payrailtest ria");
  add_old("Ana Maria Payrailtest", "ana maria payrailtest");
  // An entry added after the upgrade, and an old spelling of it.
  ASSERT_TRUE(blacklist::add(*pool_, "name", "Zoe Payrailtest", normalize_name("Zoe Payrailtest"),
                             "after the upgrade")
                  .ok());
  add_old("Zo\u00ADe Payrailtest", "e payrailtest zo");

  const auto rekeyed = blacklist::rekey_names(*pool_);
  ASSERT_TRUE(rekeyed.ok()) << rekeyed.error().message;
  EXPECT_EQ(rekeyed->rekeyed, 1);
  EXPECT_EQ(rekeyed->merged, 2);
  EXPECT_EQ(count(), "2");
  EXPECT_EQ(key_of(first), normalize_name("Ana Maria Payrailtest"));  // the older entry stays
  EXPECT_EQ(database_->scalar("SELECT reason FROM screening_blacklist WHERE normalized = " +
                              quoted(normalize_name("Zoe Payrailtest"))),
            "after the upgrade");
}

// One old entry's new key is another old entry's old key: each gets its own new key.
TEST_F(BlacklistRekey, ANewKeyMayBeAnotherEntrysOldKey) {
  const auto moved = add_old("Ma\u00ADduro Payrailtest", "duro ma payrailtest");
  const auto holder = add_old("Zoe Payrailtest", normalize_name("Maduro Payrailtest"));
  const auto rekeyed = blacklist::rekey_names(*pool_);
  ASSERT_TRUE(rekeyed.ok()) << rekeyed.error().message;
  EXPECT_EQ(rekeyed->rekeyed, 2);
  EXPECT_EQ(rekeyed->merged, 0);
  EXPECT_EQ(key_of(moved), normalize_name("Maduro Payrailtest"));
  EXPECT_EQ(key_of(holder), normalize_name("Zoe Payrailtest"));
}

}  // namespace
}  // namespace payrail::testing
