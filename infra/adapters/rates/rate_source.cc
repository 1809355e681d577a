#include "infra/adapters/rates/rate_source.h"

#include <string>

namespace payrail::infra::rates {
namespace {

constexpr std::string_view kReferenceSourceName = "reference";

model::Error unsupported(std::string_view param) {
  return model::Error::make(model::ErrorCode::unsupported_country,
                            std::string(param) +
                                " is not a currency or asset Payrail quotes; GET /v1/countries "
                                "lists the corridor currencies, and USDC, USDT and ETH are quoted.",
                            std::string(param));
}

}  // namespace

model::Result<model::ExchangeRate> ReferenceRateSource::rate(std::string_view from,
                                                             std::string_view to) const {
  if (!model::has_reference_rate(from)) return unsupported("from");
  if (!model::has_reference_rate(to)) return unsupported("to");
  return *model::reference_rate(from, to);
}

bool is_known_source(std::string_view name) {
  return name.empty() || name == kReferenceSourceName;
}

bool live_source_configured(std::string_view live_source_name) {
  return live_source_name == kReferenceSourceName;
}

RateSources::RateSources(std::string_view live_source_name)
    : test_(std::make_unique<ReferenceRateSource>()) {
  if (live_source_configured(live_source_name)) live_ = std::make_unique<ReferenceRateSource>();
}

model::Result<const RateSource*> RateSources::for_mode(model::Mode mode) const {
  if (mode == model::Mode::test) return static_cast<const RateSource*>(test_.get());
  if (!live_) {
    return model::Error::make(model::ErrorCode::provider_unavailable,
                              "Live exchange rates are not available: no rate source is "
                              "configured.");
  }
  return static_cast<const RateSource*>(live_.get());
}

model::Result<Conversion> usdc_needed(const RateSource& source, const model::Decimal& amount,
                                      std::string_view currency) {
  auto rate = source.rate("USDC", currency);
  if (!rate.ok()) return rate.error();
  const auto usdc = model::usdc_needed(amount, *rate);
  return Conversion{std::move(*rate), usdc};
}

model::Result<Conversion> usdc_credited(const RateSource& source, const model::Decimal& amount,
                                        std::string_view currency) {
  auto rate = source.rate(currency, "USDC");
  if (!rate.ok()) return rate.error();
  const auto usdc = model::usdc_credited(amount, *rate);
  return Conversion{std::move(*rate), usdc};
}

}  // namespace payrail::infra::rates
