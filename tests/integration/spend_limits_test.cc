// The daily and monthly spend counters, reserved in one statement, against a real database: the
// error names the period that does not fit (the day first, as before), whether the amount alone
// or the counter plus the amount passes the limit; a refused reservation changes no counter. And
// the limit overrides, read by their names.
#include <gtest/gtest.h>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/money/spend.h"
#include "tests/support/database.h"

namespace payrail::testing {
namespace {

namespace spend = infra::store::spend;

class SpendLimits : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    for (const auto* org : {"org_daily", "org_monthly", "org_alone", "org_overrides"}) {
      database_->add_organization(org);
    }
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 2});
  }
  static void TearDownTestSuite() {
    delete pool_;
    delete database_;
  }

  static model::PayoutLimits limits(const char* daily, const char* monthly) {
    auto limits = model::default_payout_limits(model::Mode::test);
    limits.daily_usd = *model::parse_decimal(daily);
    limits.monthly_usd = *model::parse_decimal(monthly);
    return limits;
  }

  // The error message of the reservation, or "" when it fitted (and was committed).
  static std::string reserve(const std::string& org_id, const std::string& amount_usd,
                             const model::PayoutLimits& limits) {
    const auto status = pool_->transact([&](pqxx::work& tx) -> model::Status {
      return spend::reserve(tx, org_id, model::Mode::test, amount_usd, limits);
    });
    if (status.ok()) return "";
    EXPECT_EQ(status.error().code, model::ErrorCode::limit_exceeded);
    return status.error().message;
  }

  static std::string counters(const std::string& org_id) {
    return database_->scalar(
        "SELECT string_agg(period || '=' || amount_usd::text, ' ' ORDER BY period) "
        "FROM spend_counters WHERE org_id = '" +
        org_id + "'");
  }

  inline static TestDatabase* database_ = nullptr;
  inline static infra::pg::Pool* pool_ = nullptr;
};

TEST_F(SpendLimits, TheDayIsCheckedFirst) {
  const auto tight_day = limits("50", "100");
  EXPECT_EQ(reserve("org_daily", "30", tight_day), "");
  EXPECT_EQ(counters("org_daily"), "day=30 month=30");
  EXPECT_NE(reserve("org_daily", "30", tight_day).find("daily limit of 50 USD"), std::string::npos);
  EXPECT_EQ(counters("org_daily"), "day=30 month=30");   // nothing reserved
  EXPECT_EQ(reserve("org_daily", "20", tight_day), "");  // exactly at the limit fits
  EXPECT_EQ(counters("org_daily"), "day=50 month=50");
}

TEST_F(SpendLimits, TheMonthWhenTheDayFits) {
  const auto tight_month = limits("1000", "40");
  EXPECT_EQ(reserve("org_monthly", "30", tight_month), "");
  EXPECT_NE(reserve("org_monthly", "20", tight_month).find("monthly limit of 40 USD"),
            std::string::npos);
  EXPECT_EQ(counters("org_monthly"), "day=30 month=30");
}

TEST_F(SpendLimits, AnAmountAboveALimitAloneNamesThatLimit) {
  EXPECT_NE(reserve("org_alone", "60", limits("50", "100")).find("daily limit of 50 USD"),
            std::string::npos);
  EXPECT_NE(reserve("org_alone", "60", limits("100", "50")).find("monthly limit of 50 USD"),
            std::string::npos);
  EXPECT_EQ(counters("org_alone"), "");  // no counter row was kept
  EXPECT_NE(reserve("org_alone", "not a number", limits("100", "100")), "");
}

// Each override is read by its name wherever the row selects override_columns(): from a known
// column (`first`), or found in the row's result; a NULL override keeps the mode's default.
TEST_F(SpendLimits, OverridesAreReadByTheirNames) {
  ASSERT_TRUE(spend::set_overrides(*pool_, "org_overrides", model::Mode::test,
                                   {.auto_approval_usd = "12.5", .daily_usd = "700"})
                  .ok());
  constexpr auto kColumns = spend::override_columns("l");
  const auto text = [](const model::PayoutLimits& limits) {
    return model::format_decimal(limits.auto_approval_usd) + " " +
           model::format_decimal(limits.per_payout_usd) + " " +
           model::format_decimal(limits.daily_usd) + " " +
           model::format_decimal(limits.monthly_usd);
  };
  auto expected = model::default_payout_limits(model::Mode::test);
  expected.auto_approval_usd = *model::parse_decimal("12.5");
  expected.daily_usd = *model::parse_decimal("700");
  const auto status = pool_->transact([&](pqxx::work& tx) -> model::Status {
    // Two columns before the overrides, one after.
    const auto rows = tx.exec(std::string("SELECT l.org_id, l.mode, ") + kColumns.c_str() +
                              ", 1 AS after FROM organization_limits l "
                              "WHERE l.org_id = 'org_overrides' AND l.mode = 'test'");
    EXPECT_EQ(rows.size(), 1u);
    EXPECT_EQ(text(spend::limits_with_overrides(rows[0], 2, model::Mode::test)), text(expected));
    EXPECT_EQ(text(spend::effective_limits(tx, "org_overrides", model::Mode::test)),
              text(expected));
    const auto batch = spend::effective_limits(
        tx, std::vector<spend::Scope>{{"org_overrides", model::Mode::test},
                                      {"org_overrides", model::Mode::live}});
    EXPECT_EQ(text(batch.at({"org_overrides", model::Mode::test})), text(expected));
    EXPECT_EQ(text(batch.at({"org_overrides", model::Mode::live})),
              text(model::default_payout_limits(model::Mode::live)));
    return model::ok_status();
  });
  EXPECT_TRUE(status.ok());
}

}  // namespace
}  // namespace payrail::testing
