// SQL as compile-time constants and columns found by name (infra/store/sql/text.h). Most checks
// are static_asserts: they run while this file compiles. A name the list lacks does not compile
// (`sql::column(kColumns, "nope")` is refused as not a constant expression).
#include "infra/store/sql/text.h"

#include <gtest/gtest.h>

#include <string_view>

namespace payrail::infra::store {
namespace {

constexpr auto kColumns =
    sql::concat("id, org_id, amount::text AS amount, ", sql::timestamp("created_at"),
                ", p.event_sequence, coalesce(reason, '') AS reason, f(a, b) AS g");
constexpr auto kSelect = sql::concat("SELECT ", kColumns, " FROM t WHERE id = $1");

static_assert(sql::column(kColumns, "id") == 0);
static_assert(sql::column(kColumns, "org_id") == 1);
static_assert(sql::column(kColumns, "amount") == 2);
static_assert(sql::column(kColumns, "created_at") == 3);
static_assert(sql::column(kColumns, "event_sequence") == 4);  // a qualified column: its own name
static_assert(sql::column(kColumns, "reason") == 5);          // a comma inside a quoted literal
static_assert(sql::column(kColumns, "g") == 6);               // commas inside parentheses
static_assert(sql::column_count(kColumns) == 7);

TEST(SqlText, ConcatenatesIntoOneTerminatedString) {
  EXPECT_EQ(std::string_view(kSelect.c_str()),
            "SELECT id, org_id, amount::text AS amount, to_char(created_at AT TIME ZONE 'UTC', "
            "'YYYY-MM-DD\"T\"HH24:MI:SS\"Z\"') AS created_at, p.event_sequence, coalesce(reason, "
            "'') AS reason, f(a, b) AS g FROM t WHERE id = $1");
  EXPECT_EQ(kSelect.size(), kSelect.view().size());
  EXPECT_EQ(kSelect.c_str()[kSelect.size()], '\0');
}

}  // namespace
}  // namespace payrail::infra::store
