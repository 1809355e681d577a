#include "schemas/model/money/money.h"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

namespace payrail::model {
namespace {

Decimal decimal(std::string_view text) {
  std::optional<Decimal> value = parse_decimal(text);
  EXPECT_TRUE(value.has_value()) << text;
  return value.value_or(Decimal{});
}

std::string nines(int count) {
  return std::string(static_cast<std::size_t>(count), '9');
}

TEST(MoneyAsset, ParsesExactUppercaseNames) {
  EXPECT_EQ(parse_asset("USDC"), Asset::USDC);
  EXPECT_EQ(parse_asset("USDT"), Asset::USDT);
  EXPECT_EQ(parse_asset("ETH"), Asset::ETH);
  for (std::string_view text : {"usdc", "Usdc", "eth", " USDC", "USDC ", "", "BTC", "USD"}) {
    EXPECT_FALSE(parse_asset(text).has_value()) << text;
  }
}

TEST(MoneyAsset, NamesRoundTrip) {
  for (Asset asset : {Asset::USDC, Asset::USDT, Asset::ETH}) {
    EXPECT_EQ(parse_asset(asset_name(asset)), asset);
  }
}

TEST(MoneyAsset, Precision) {
  EXPECT_EQ(asset_precision(Asset::USDC), 6);
  EXPECT_EQ(asset_precision(Asset::USDT), 6);
  EXPECT_EQ(asset_precision(Asset::ETH), 18);
}

TEST(MoneyParseAmount, AcceptsCanonicalDecimals) {
  struct Case {
    std::string_view text;
    std::string_view units;
    int scale;
  };
  std::vector<Case> cases{
      {"1", "1", 0},
      {"0.5", "5", 1},
      {"10.25", "1025", 2},
      {"0.000001", "1", 6},
      {"100.000000", "100000000", 6},
      {"12345678901234567890", "12345678901234567890", 0},
  };
  for (const Case& c : cases) {
    Result<Decimal> parsed = parse_amount(c.text, 6, "amount");
    ASSERT_TRUE(parsed.ok()) << c.text << ": " << parsed.error().message;
    EXPECT_EQ(format_decimal(Decimal{parsed->units, 0}), c.units) << c.text;
    EXPECT_EQ(parsed->scale, c.scale) << c.text;
  }
}

TEST(MoneyParseAmount, AcceptsTheLargestAmount) {
  std::string text = nines(20) + "." + nines(18);
  Result<Decimal> parsed = parse_amount(text, 18, "amount");
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(format_decimal(*parsed), text);
}

struct Rejection {
  std::string text;
  int max_scale;
  std::string message;
};

void expect_rejected(const Rejection& c, std::string_view param) {
  Result<Decimal> parsed = parse_amount(c.text, c.max_scale, param);
  ASSERT_FALSE(parsed.ok()) << "accepted \"" << c.text << "\"";
  EXPECT_EQ(parsed.error().code, ErrorCode::bad_request) << c.text;
  EXPECT_EQ(parsed.error().param, std::string(param)) << c.text;
  EXPECT_EQ(parsed.error().message, c.message) << "\"" << c.text << "\"";
}

TEST(MoneyParseAmount, RejectsEveryMalformedAmountWithParam) {
  std::vector<Rejection> cases{
      {"", 6, "amount must not be empty"},
      {" 1", 6, "amount must not contain whitespace"},
      {"1 ", 6, "amount must not contain whitespace"},
      {"1 000", 6, "amount must not contain whitespace"},
      {"\t1", 6, "amount must not contain whitespace"},
      {"1\n", 6, "amount must not contain whitespace"},
      {"-1", 6, "amount must be written without a sign"},
      {"+1", 6, "amount must be written without a sign"},
      {"-0", 6, "amount must be written without a sign"},
      {"1e5", 6, "amount must not use exponent notation"},
      {"1E5", 6, "amount must not use exponent notation"},
      {"1.5e-3", 6, "amount must not use exponent notation"},
      {"01", 6, "amount must not have leading zeros"},
      {"00", 6, "amount must not have leading zeros"},
      {"00.5", 6, "amount must not have leading zeros"},
      {"1.", 6, "amount must have at least one digit after the decimal point"},
      {".5", 6, "amount must have at least one digit before the decimal point"},
      {".", 6, "amount must have at least one digit before the decimal point"},
      {"1.2.3", 6, "amount must contain at most one decimal point"},
      {"1,000", 6, "amount must be a decimal string such as \"12.50\""},
      {"abc", 6, "amount must be a decimal string such as \"12.50\""},
      {"0x10", 6, "amount must be a decimal string such as \"12.50\""},
      {"NaN", 6, "amount must be a decimal string such as \"12.50\""},
      {"\xef\xbc\x91", 6, "amount must be a decimal string such as \"12.50\""},  // fullwidth 1
      {"1.1234567", 6, "amount has more than 6 decimal places"},
      {"0.0000000", 6, "amount has more than 6 decimal places"},
      {"1.05", 1, "amount has more than 1 decimal place"},
      {"1.5", 0, "amount must be a whole number"},
      {"1" + std::string(20, '0'), 6, "amount has more than 20 integer digits"},
      {"0", 6, "amount must be greater than zero"},
      {"0.0", 6, "amount must be greater than zero"},
      {"0.000", 6, "amount must be greater than zero"},
      {"0.000000", 6, "amount must be greater than zero"},
  };
  for (const Rejection& c : cases) expect_rejected(c, "amount");
}

TEST(MoneyParseAmount, UsesTheGivenParamInErrorAndMessage) {
  expect_rejected({"01", 6, "limits.daily_amount must not have leading zeros"},
                  "limits.daily_amount");
  expect_rejected({"1.1234567", 6, "limits.daily_amount has more than 6 decimal places"},
                  "limits.daily_amount");
}

TEST(MoneyParseAmount, PrecisionPerAsset) {
  for (Asset asset : {Asset::USDC, Asset::USDT}) {
    EXPECT_TRUE(parse_amount("1.123456", asset_precision(asset), "amount").ok());
    Result<Decimal> rejected = parse_amount("1.1234567", asset_precision(asset), "amount");
    ASSERT_FALSE(rejected.ok());
    EXPECT_EQ(rejected.error().message, "amount has more than 6 decimal places");
    EXPECT_EQ(rejected.error().param, "amount");
  }
  std::string eighteen = "0." + std::string(17, '0') + "1";
  Result<Decimal> wei = parse_amount(eighteen, asset_precision(Asset::ETH), "amount");
  ASSERT_TRUE(wei.ok());
  EXPECT_EQ(wei->units, 1);
  EXPECT_EQ(wei->scale, 18);
  Result<Decimal> rejected =
      parse_amount("0." + std::string(18, '0') + "1", asset_precision(Asset::ETH), "amount");
  ASSERT_FALSE(rejected.ok());
  EXPECT_EQ(rejected.error().message, "amount has more than 18 decimal places");
  EXPECT_EQ(rejected.error().param, "amount");
}

TEST(MoneyParseDecimal, ReadsDatabaseNumerics) {
  Decimal balance = decimal("1000000.000000");
  EXPECT_EQ(balance.units, static_cast<__int128>(1000000000000LL));
  EXPECT_EQ(balance.scale, 6);
  Decimal zero = decimal("0");
  EXPECT_EQ(zero.units, 0);
  EXPECT_EQ(zero.scale, 0);
  Decimal zero_scaled = decimal("0.000");
  EXPECT_EQ(zero_scaled.units, 0);
  EXPECT_EQ(zero_scaled.scale, 3);
  Decimal widest = decimal(nines(38));
  EXPECT_EQ(format_decimal(widest), nines(38));
  Decimal finest = decimal("0." + nines(37));
  EXPECT_EQ(finest.scale, 37);
}

TEST(MoneyParseDecimal, RejectsOtherText) {
  for (std::string text : {std::string(""), std::string("-1"), std::string("+1"), std::string("01"),
                           std::string("1."), std::string(".5"), std::string("1e3"),
                           std::string(" 1"), std::string("1.2.3"), nines(39), "1." + nines(38)}) {
    EXPECT_FALSE(parse_decimal(text).has_value()) << text;
  }
}

TEST(MoneyFormat, PrintsExactlyScaleDigits) {
  EXPECT_EQ(format_decimal(Decimal{50, 2}), "0.50");
  EXPECT_EQ(format_decimal(Decimal{7, 0}), "7");
  EXPECT_EQ(format_decimal(Decimal{0, 0}), "0");
  EXPECT_EQ(format_decimal(Decimal{0, 3}), "0.000");
  EXPECT_EQ(format_decimal(Decimal{1, 6}), "0.000001");
  EXPECT_EQ(format_decimal(Decimal{1, 18}), "0.000000000000000001");
  EXPECT_EQ(format_decimal(Decimal{123456, 3}), "123.456");
  EXPECT_EQ(format_decimal(Decimal{-50, 2}), "-0.50");
  EXPECT_EQ(format_decimal(Decimal{-15, 1}), "-1.5");
}

TEST(MoneyFormat, RoundTripsThroughParse) {
  for (std::string text : {std::string("0"), std::string("0.50"), std::string("1"),
                           std::string("1000000.000000"), std::string("0.000000000000000001"),
                           std::string("42.100"), nines(20) + "." + nines(18), nines(38)}) {
    EXPECT_EQ(format_decimal(decimal(text)), text);
    Result<Decimal> amount = parse_amount(text, 18, "amount");
    if (amount.ok()) {
      EXPECT_EQ(format_decimal(*amount), text);
    }
  }
}

TEST(MoneyArithmetic, RescaleOnlyWidens) {
  Decimal widened = rescale(decimal("1.5"), 6);
  EXPECT_EQ(widened.units, 1500000);
  EXPECT_EQ(widened.scale, 6);
  EXPECT_EQ(format_decimal(rescale(decimal("2"), 0)), "2");
  EXPECT_EQ(format_decimal(rescale(decimal(nines(20) + "." + nines(6)), 18)),
            nines(20) + "." + nines(6) + std::string(12, '0'));
#ifdef NDEBUG
  EXPECT_THROW((void)rescale(decimal("1.50"), 1), std::invalid_argument);
#else
  EXPECT_DEATH((void)rescale(decimal("1.50"), 1), "scale");
#endif
}

TEST(MoneyArithmetic, CompareAcrossScales) {
  EXPECT_EQ(compare(decimal("1.50"), decimal("1.5")), 0);
  EXPECT_EQ(compare(decimal("1.5"), decimal("1.500001")), -1);
  EXPECT_EQ(compare(decimal("2"), decimal("1.999999999999999999")), 1);
  EXPECT_EQ(compare(decimal("0"), decimal("0.000")), 0);
  EXPECT_EQ(compare(Decimal{-15, 1}, Decimal{-5, 1}), -1);
  EXPECT_EQ(compare(Decimal{-5, 1}, Decimal{3, 1}), -1);
  EXPECT_EQ(compare(Decimal{-5, 1}, Decimal{-1, 0}), 1);
  EXPECT_EQ(compare(Decimal{-105, 2}, Decimal{-1, 0}), -1);
  // A 38-digit integer against an 18-decimal value: must not overflow by rescaling.
  EXPECT_EQ(compare(decimal(nines(38)), decimal(nines(20) + "." + nines(18))), 1);
  EXPECT_EQ(compare(decimal(nines(20) + "." + nines(18)), decimal(nines(38))), -1);
}

TEST(MoneyArithmetic, AddAndSubtract) {
  EXPECT_EQ(format_decimal(add(decimal("1.5"), decimal("0.25"))), "1.75");
  EXPECT_EQ(format_decimal(add(decimal("100"), decimal("0.000001"))), "100.000001");
  EXPECT_EQ(format_decimal(subtract(decimal("1.000000"), decimal("0.25"))), "0.750000");
  EXPECT_EQ(format_decimal(subtract(decimal("0.25"), decimal("1"))), "-0.75");
  EXPECT_EQ(format_decimal(subtract(decimal("5"), decimal("5.00"))), "0.00");
  Decimal max_amount = decimal(nines(20) + "." + nines(18));
  EXPECT_EQ(format_decimal(subtract(max_amount, max_amount)), "0." + std::string(18, '0'));
}

TEST(MoneyArithmetic, MultiplyAddsScales) {
  Decimal fee = multiply(decimal("2.5"), decimal("0.0025"));
  EXPECT_EQ(fee.scale, 5);
  EXPECT_EQ(format_decimal(fee), "0.00625");
  EXPECT_EQ(format_decimal(multiply(decimal("1000000.000000"), decimal("3"))), "3000000.000000");
  EXPECT_EQ(format_decimal(multiply(Decimal{-2, 0}, decimal("1.5"))), "-3.0");
}

TEST(MoneyArithmetic, OverflowThrowsInsteadOfWrapping) {
  Decimal widest = decimal(nines(38));
  EXPECT_THROW((void)add(widest, widest), std::overflow_error);
  EXPECT_THROW((void)subtract(Decimal{-widest.units, 0}, widest), std::overflow_error);
  EXPECT_THROW((void)multiply(decimal(nines(20)), decimal(nines(20))), std::overflow_error);
  EXPECT_THROW((void)multiply(decimal("0." + nines(20)), decimal("0." + nines(20))),
               std::overflow_error);
  EXPECT_THROW((void)rescale(decimal(nines(30)), 18), std::overflow_error);
  Decimal max_amount = decimal(nines(20) + "." + nines(18));
  // Units just under 10^38 are the largest amount; twice that exceeds __int128 (~1.7e38).
  EXPECT_THROW((void)add(max_amount, max_amount), std::overflow_error);
  EXPECT_EQ(format_decimal(add(max_amount, decimal("1"))),
            "1" + std::string(20, '0') + "." + nines(18));
  EXPECT_EQ(format_decimal(add(widest, decimal("1"))), "1" + std::string(38, '0'));
}

TEST(MoneyArithmetic, IsPositive) {
  EXPECT_TRUE(is_positive(decimal("0.000001")));
  EXPECT_FALSE(is_positive(decimal("0")));
  EXPECT_FALSE(is_positive(decimal("0.00")));
  EXPECT_FALSE(is_positive(Decimal{-1, 6}));
}

TEST(MoneyRounding, DivideRoundsOnceInTheChosenDirection) {
  const auto one = decimal("1");
  const auto eight = decimal("8");
  EXPECT_EQ(format_decimal(divide(one, eight, 3, Rounding::down)), "0.125");
  EXPECT_EQ(format_decimal(divide(one, eight, 2, Rounding::down)), "0.12");
  EXPECT_EQ(format_decimal(divide(one, eight, 2, Rounding::up)), "0.13");
  EXPECT_EQ(format_decimal(divide(one, eight, 2, Rounding::half_up)), "0.13");  // a tie goes up
  EXPECT_EQ(format_decimal(divide(decimal("1"), decimal("3"), 6, Rounding::half_up)), "0.333333");
  EXPECT_EQ(format_decimal(divide(decimal("2"), decimal("3"), 6, Rounding::half_up)), "0.666667");
  EXPECT_EQ(format_decimal(divide(decimal("2"), decimal("3"), 6, Rounding::down)), "0.666666");
  EXPECT_EQ(format_decimal(divide(decimal("10.00"), decimal("4"), 0, Rounding::up)), "3");
  EXPECT_EQ(format_decimal(divide(decimal("12"), decimal("4"), 0, Rounding::up)), "3")
      << "exact: no bump";
  EXPECT_EQ(format_decimal(divide(decimal("1.5"), decimal("0.003"), 2, Rounding::down)), "500.00");
  EXPECT_EQ(format_decimal(divide(Decimal{-1, 0}, eight, 2, Rounding::up)), "-0.13")
      << "away from zero";
  EXPECT_EQ(format_decimal(divide(Decimal{-1, 0}, eight, 2, Rounding::down)), "-0.12")
      << "toward zero";
  EXPECT_THROW(divide(one, decimal("0"), 2, Rounding::up), std::domain_error);
}

TEST(MoneyRounding, RoundToScaleAndTrim) {
  EXPECT_EQ(format_decimal(round_to_scale(decimal("71.4285714286"), 6, Rounding::down)),
            "71.428571");
  EXPECT_EQ(format_decimal(round_to_scale(decimal("71.4285714286"), 6, Rounding::up)), "71.428572");
  EXPECT_EQ(format_decimal(round_to_scale(decimal("0.0000005"), 6, Rounding::half_up)), "0.000001");
  EXPECT_EQ(format_decimal(round_to_scale(decimal("0.0000004999"), 6, Rounding::half_up)),
            "0.000000");
  EXPECT_EQ(format_decimal(round_to_scale(decimal("1.5"), 3, Rounding::down)), "1.500");
  EXPECT_EQ(format_decimal(trim_zeros(decimal("17.1500"))), "17.15");
  EXPECT_EQ(format_decimal(trim_zeros(decimal("3000.00"))), "3000");
  EXPECT_EQ(format_decimal(trim_zeros(decimal("0.000"))), "0");
}

TEST(MoneyRounding, TheLargestAmountDividedByARateFits) {
  // 20 integer digits at scale 0, into 6 decimals, by a 12-decimal rate: 10^38-ish units.
  const auto amount = decimal("99999999999999999999");
  const auto rate = decimal("0.000000228311");
  EXPECT_NO_THROW(divide(amount, rate, 6, Rounding::up));
  EXPECT_THROW(divide(decimal("99999999999999999999.99"), rate, 18, Rounding::up),
               std::overflow_error);
}

}  // namespace
}  // namespace payrail::model
