// Array literals for the parameters libpqxx 6.4 cannot bind as arrays
// (infra/plumbing/pg/sql_array.h): every text element quoted and escaped, so no value reads as NULL
// or splits; nullopt as NULL.
#include "infra/plumbing/pg/sql_array.h"

#include <gtest/gtest.h>

namespace payrail::infra::pg {
namespace {

TEST(SqlArray, NumbersAreListedBare) {
  EXPECT_EQ(sql_array(std::vector<long>{1, -2, 30}), "{1,-2,30}");
  EXPECT_EQ(sql_array(std::vector<long>{}), "{}");
}

TEST(SqlArray, TextIsQuotedAndEscaped) {
  EXPECT_EQ(sql_array(std::vector<std::string>{"a,b", "say \"hi\"", "back\\slash", "NULL", ""}),
            R"({"a,b","say \"hi\"","back\\slash","NULL",""})");
}

TEST(SqlArray, NulloptIsNullAndTextStaysQuoted) {
  EXPECT_EQ(sql_array(std::vector<std::optional<std::string>>{"pending", std::nullopt, "NULL"}),
            R"({"pending",NULL,"NULL"})");
}

}  // namespace
}  // namespace payrail::infra::pg
