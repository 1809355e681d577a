// Exact rates and conversions: the reference table's cross
// rates and inverses (expected values worked out independently with arbitrary-precision decimal
// arithmetic), the payout and collection conversions with their rounding direction, the USD
// valuation limits use, and the rate sources per mode.
#include <gtest/gtest.h>

#include <cstdlib>
#include <stdexcept>

#include "infra/adapters/rates/rate_source.h"
#include "infra/programs/config/config.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/limits.h"
#include "schemas/model/money/money.h"
#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

Decimal decimal(std::string_view text) {
  const auto value = parse_decimal(text);
  EXPECT_TRUE(value.has_value()) << text;
  return value.value_or(Decimal{});
}

std::string text(const Decimal& value) {
  return format_decimal(value);
}

struct Expected {
  std::string_view from, to, rate, inverse;
};

TEST(ReferenceRates, CrossRatesAndInversesAreExactThenRoundedOnce) {
  const Expected cases[] = {
      {"USDC", "MXN", "18.45", "0.054200542005"},
      {"USD", "EUR", "0.862068965517", "1.16"},
      {"EUR", "MXN", "21.402", "0.046724605177"},
      {"GBP", "EUR", "1.133620689655", "0.882129277567"},
      {"ETH", "NGN", "4380000", "0.000000228311"},
      {"CAD", "USDC", "0.714285714286", "1.4"},
      {"USDC", "COP", "3870", "0.000258397933"},
      {"ETH", "USD", "3000", "0.000333333333"},
      {"MXN", "ETH", "0.000018066847", "55350"},
      {"ARS", "COP", "2.659793814433", "0.375968992248"},
      {"USDT", "USDC", "1", "1"},
      {"BRL", "BRL", "1", "1"},
  };
  for (const auto& c : cases) {
    const auto rate = reference_rate(c.from, c.to);
    ASSERT_TRUE(rate.has_value()) << c.from << " " << c.to;
    EXPECT_EQ(text(rate->rate), c.rate) << c.from << " -> " << c.to;
    EXPECT_EQ(text(rate->inverse), c.inverse) << c.to << " -> " << c.from;
    EXPECT_EQ(rate->from, c.from);
    EXPECT_EQ(rate->to, c.to);
    EXPECT_EQ(rate->as_of, kReferenceRatesAsOf);
  }
}

TEST(ReferenceRates, CoverEveryCorridorCurrencyAndAssetAtMostTwelveDecimals) {
  std::vector<std::string_view> codes;
  for (const auto& entry : reference_rates()) {
    EXPECT_TRUE(parse_decimal(entry.mid).has_value()) << entry.code;
    codes.push_back(entry.code);
  }
  for (const auto* asset : {"USDC", "USDT", "ETH"}) {
    EXPECT_TRUE(has_reference_rate(asset)) << asset;
  }
  for (const auto& currency : currencies()) EXPECT_TRUE(has_reference_rate(currency.code));
  for (const auto from : codes) {
    for (const auto to : codes) {
      const auto rate = reference_rate(from, to);
      ASSERT_TRUE(rate.has_value());
      EXPECT_LE(rate->rate.scale, kRateScale) << from << " " << to;
      EXPECT_TRUE(is_positive(rate->rate)) << from << " " << to;
      // rate(a, b) and rate(b, a) are the same pair seen from both sides.
      EXPECT_EQ(text(reference_rate(to, from)->rate), text(rate->inverse));
    }
  }
  EXPECT_FALSE(reference_rate("USDC", "JPY").has_value());
  EXPECT_FALSE(reference_rate("usdc", "MXN").has_value());
  EXPECT_FALSE(reference_rate("", "MXN").has_value());
}

TEST(RateConversions, PayoutFundingRoundsUpFromThePublishedRate) {
  const auto mxn = *reference_rate("USDC", "MXN");
  EXPECT_EQ(text(usdc_needed(decimal("1000"), mxn)), "54.200543");
  EXPECT_EQ(text(usdc_needed(decimal("18.45"), mxn)), "1.000000") << "exact: no extra unit";
  EXPECT_EQ(text(usdc_needed(decimal("0.01"), mxn)), "0.000543");
  // EUR is quoted as USD per EUR, so USDC -> EUR is a rounded 12-decimal rate; funding divides
  // by that published rate, which an integrator can recompute.
  const auto eur = *reference_rate("USDC", "EUR");
  EXPECT_EQ(text(eur.rate), "0.862068965517");
  EXPECT_EQ(text(usdc_needed(decimal("1000.00"), eur)), "1160.000001");
  EXPECT_THROW(usdc_needed(decimal("1"), *reference_rate("MXN", "USDC")), std::invalid_argument);
}

TEST(RateConversions, CollectionCreditRoundsDown) {
  const auto cad = *reference_rate("CAD", "USDC");
  EXPECT_EQ(text(usdc_credited(decimal("100"), cad)), "71.428571");
  EXPECT_EQ(text(usdc_credited(decimal("0.01"), cad)), "0.007142");
  EXPECT_EQ(text(usdc_credited(decimal("250.00"), *reference_rate("USD", "USDC"))), "250.000000");
  EXPECT_THROW(usdc_credited(decimal("1"), *reference_rate("USDC", "CAD")), std::invalid_argument);
}

TEST(RateConversions, RoundingNeverFavoursTheOrganizationForEveryCurrency) {
  const auto unit = decimal("0.000001");
  for (const auto& currency : currencies()) {
    const auto out = *reference_rate("USDC", currency.code);
    const auto in = *reference_rate(currency.code, "USDC");
    for (const auto* amount_text : {"0.01", "1", "99.99", "12345.67", "100000"}) {
      const auto amount = decimal(amount_text);
      // Funding: the USDC held buys at least the amount, one unit less would not.
      const auto held = usdc_needed(amount, out);
      EXPECT_GE(compare(multiply(held, out.rate), amount), 0) << currency.code << amount_text;
      EXPECT_LT(compare(multiply(subtract(held, unit), out.rate), amount), 0) << currency.code;
      // Credit: never more than the amount is worth at the rate, one unit more would be.
      const auto credited = usdc_credited(amount, in);
      const auto worth = multiply(amount, in.rate);
      EXPECT_LE(compare(credited, worth), 0) << currency.code << amount_text;
      EXPECT_GT(compare(add(credited, unit), worth), 0) << currency.code << amount_text;
    }
  }
}

TEST(LimitValuation, UsesTheRatesTableForAssetsAndCurrencies) {
  EXPECT_EQ(compare(value_in_usd(decimal("10.5"), Asset::USDC), decimal("10.5")), 0);
  EXPECT_EQ(compare(value_in_usd(decimal("10.5"), Asset::USDT), decimal("10.5")), 0);
  EXPECT_EQ(compare(value_in_usd(decimal("2"), Asset::ETH), decimal("6000")), 0);
  EXPECT_EQ(compare(*value_in_usd(decimal("1000"), "MXN"), decimal("54.200542005")), 0);
  EXPECT_EQ(compare(*value_in_usd(decimal("100"), "EUR"), decimal("116")), 0);
  EXPECT_EQ(compare(*value_in_usd(decimal("100"), "USD"), decimal("100")), 0);
  EXPECT_FALSE(value_in_usd(decimal("1"), "JPY").has_value());
}

TEST(RateSources, TestModeQuotesTheTableLiveNeedsAConfiguredSource) {
  const infra::rates::RateSources none("");
  auto test = none.for_mode(Mode::test);
  ASSERT_TRUE(test.ok());
  auto rate = (*test)->rate("USDC", "MXN");
  ASSERT_TRUE(rate.ok());
  EXPECT_EQ(text(rate->rate), "18.45");
  auto live = none.for_mode(Mode::live);
  ASSERT_FALSE(live.ok());
  EXPECT_EQ(live.error().code, ErrorCode::provider_unavailable);

  const infra::rates::RateSources reference("reference");
  ASSERT_TRUE(reference.for_mode(Mode::live).ok());
  EXPECT_TRUE(infra::rates::is_known_source(""));
  EXPECT_TRUE(infra::rates::is_known_source("reference"));
  EXPECT_FALSE(infra::rates::is_known_source("simulated"));
  EXPECT_FALSE(infra::rates::live_source_configured(""));
}

TEST(RateSources, TheSettingAcceptsOnlyKnownSources) {
  setenv("PAYRAIL_RATE_SOURCE", "reference", 1);
  auto reference = infra::load_config_from_environment();
  setenv("PAYRAIL_RATE_SOURCE", "market", 1);
  auto unknown = infra::load_config_from_environment();
  unsetenv("PAYRAIL_RATE_SOURCE");
  auto unset = infra::load_config_from_environment();
  ASSERT_TRUE(reference.ok());
  EXPECT_EQ(reference->rate_source, "reference");
  ASSERT_FALSE(unknown.ok());
  EXPECT_NE(unknown.error().message.find("PAYRAIL_RATE_SOURCE"), std::string::npos);
  ASSERT_TRUE(unset.ok());
  EXPECT_EQ(unset->rate_source, "");
}

TEST(RateSources, UnsupportedCodesNameTheirParameter) {
  const infra::rates::ReferenceRateSource source;
  auto from = source.rate("JPY", "MXN");
  ASSERT_FALSE(from.ok());
  EXPECT_EQ(from.error().code, ErrorCode::unsupported_country);
  EXPECT_EQ(from.error().param, "from");
  auto to = source.rate("USDC", "JPY");
  ASSERT_FALSE(to.ok());
  EXPECT_EQ(to.error().param, "to");
}

TEST(RateSources, ConversionsReportTheRateUsed) {
  const infra::rates::ReferenceRateSource source;
  auto funding = infra::rates::usdc_needed(source, decimal("1000"), "MXN");
  ASSERT_TRUE(funding.ok());
  EXPECT_EQ(text(funding->usdc), "54.200543");
  EXPECT_EQ(funding->rate.from, "USDC");
  EXPECT_EQ(funding->rate.to, "MXN");
  EXPECT_EQ(text(funding->rate.rate), "18.45");
  auto credit = infra::rates::usdc_credited(source, decimal("100"), "CAD");
  ASSERT_TRUE(credit.ok());
  EXPECT_EQ(text(credit->usdc), "71.428571");
  EXPECT_EQ(credit->rate.from, "CAD");
  EXPECT_FALSE(infra::rates::usdc_needed(source, decimal("1"), "JPY").ok());
}

}  // namespace
}  // namespace payrail::model
