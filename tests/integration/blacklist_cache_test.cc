// The internal blacklist as a screening worker keeps it between batches (blacklist::Cache),
// against a real database: the entries are read once and kept while the blacklist is unchanged;
// an add, a removal, or both (the count unchanged) make the next call read them again; above its
// limit nothing is kept and screening asks per payout, until the blacklist is small again.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/screening/blacklist.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace blacklist = infra::store::blacklist;
using Kept = std::shared_ptr<const blacklist::Entries>;

class BlacklistCache : public DatabaseSuite<2> {
 protected:
  static Kept current(blacklist::Cache& cache) {
    auto read = pool_->autocommit(
        [&](pqxx::nontransaction& tx) -> model::Result<Kept> { return cache.current(tx); });
    EXPECT_TRUE(read.ok());
    return read.ok() ? *read : nullptr;
  }

  static void add(const std::string& address) {
    ASSERT_TRUE(blacklist::add(*pool_, "address", address, address, "test").ok());
  }
  static void remove(const std::string& address) {
    ASSERT_TRUE(blacklist::remove(*pool_, "address", address).ok());
  }
};

TEST_F(BlacklistCache, EntriesAreKeptWhileUnchangedAndReadAgainAfterAnyChange) {
  blacklist::Cache cache(3);
  const auto empty = current(cache);
  ASSERT_NE(empty, nullptr);
  EXPECT_FALSE(empty->contains("address", "0xaa"));
  EXPECT_EQ(current(cache), empty);  // unchanged: the same entries, not read again

  add("0xaa");
  const auto added = current(cache);
  ASSERT_NE(added, empty);
  EXPECT_TRUE(added->contains("address", "0xaa"));
  EXPECT_FALSE(added->contains("name", "0xaa"));
  EXPECT_EQ(current(cache), added);

  // A removal and an add between two calls leave the count as it was: the new id shows it.
  remove("0xaa");
  add("0xbb");
  const auto replaced = current(cache);
  ASSERT_NE(replaced, added);
  EXPECT_FALSE(replaced->contains("address", "0xaa"));
  EXPECT_TRUE(replaced->contains("address", "0xbb"));

  remove("0xbb");
  const auto removed = current(cache);
  ASSERT_NE(removed, nullptr);
  EXPECT_FALSE(removed->contains("address", "0xbb"));
}

TEST_F(BlacklistCache, AboveItsLimitNothingIsKeptUntilTheBlacklistIsSmallAgain) {
  blacklist::Cache cache(3);
  for (const auto* address : {"0x01", "0x02", "0x03", "0x04"}) add(address);
  EXPECT_EQ(current(cache), nullptr);
  EXPECT_EQ(current(cache), nullptr);
  remove("0x04");
  const auto kept = current(cache);
  ASSERT_NE(kept, nullptr);
  EXPECT_TRUE(kept->contains("address", "0x03"));
  EXPECT_FALSE(kept->contains("address", "0x04"));
  for (const auto* address : {"0x01", "0x02", "0x03"}) remove(address);
}

}  // namespace
}  // namespace payrail::testing
