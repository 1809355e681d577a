// The daily and monthly spend counters, reserved in one statement, against a real database: the
// error names the period that does not fit (the day first, as before), whether the amount alone
// or the counter plus the amount passes the limit; a refused reservation changes no counter.
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
    for (const auto* org : {"org_daily", "org_monthly", "org_alone"}) {
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

}  // namespace
}  // namespace payrail::testing
