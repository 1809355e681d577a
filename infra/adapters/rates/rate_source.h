// The boundary to a source of exchange rates, and the conversions fiat payouts and collections
// make through it.
//
// Test mode always quotes the fixed reference table (schemas/model/money/rates.h; docs/catalog.md).
// Live mode uses the source named by PAYRAIL_RATE_SOURCE; with none configured there is no live
// rate: GET /v1/rates, and any live create that needs a rate, answer 503 provider_unavailable
// before anything is held. `reference` is the only name today (staging: live mode quotes the
// reference table too); a market-data adapter implements RateSource and gets a name here.
//
// Callers:
//   GET /v1/rates             sources.for_mode(mode) -> rate(from, to)
//   fiat payout create        usdc_needed(source, amount, currency): the USDC to hold and the
//                             USDC -> currency rate used (record both on the payout)
//   collection settlement     usdc_credited(source, amount, currency): the USDC to credit and
//                             the currency -> USDC rate used (record both on the collection)
#pragma once

#include <memory>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/money/money.h"
#include "schemas/model/money/rates.h"

namespace payrail::infra::rates {

class RateSource {
 public:
  virtual ~RateSource() = default;
  // The mid rate from -> to. A code the source does not quote is 422 unsupported_country with
  // param "from" or "to" (the first unsupported one); a source that cannot answer right now is
  // 503 provider_unavailable. Every corridor currency and USDC, USDT and ETH must be quoted.
  virtual model::Result<model::ExchangeRate> rate(std::string_view from,
                                                  std::string_view to) const = 0;
};

// The test-mode simulator: the fixed reference table, the same answer every time.
class ReferenceRateSource : public RateSource {
 public:
  model::Result<model::ExchangeRate> rate(std::string_view from,
                                          std::string_view to) const override;
};

// Names accepted by PAYRAIL_RATE_SOURCE: "" (none) and "reference".
bool is_known_source(std::string_view name);
bool live_source_configured(std::string_view live_source_name);

// The source of each mode, created once per process.
class RateSources {
 public:
  explicit RateSources(std::string_view live_source_name);
  // The mode's source; 503 provider_unavailable in live mode when none is configured.
  model::Result<const RateSource*> for_mode(model::Mode mode) const;

 private:
  std::unique_ptr<RateSource> test_;
  std::unique_ptr<RateSource> live_;
};

struct Conversion {
  model::ExchangeRate rate;  // the rate used, as GET /v1/rates shows it
  model::Decimal usdc;       // at 6 decimals
};

// Fiat payout funding: rate(USDC -> currency) and amount / rate rounded up to 6 decimals.
model::Result<Conversion> usdc_needed(const RateSource& source, const model::Decimal& amount,
                                      std::string_view currency);
// Collection credit: rate(currency -> USDC) and amount * rate rounded down to 6 decimals.
model::Result<Conversion> usdc_credited(const RateSource& source, const model::Decimal& amount,
                                        std::string_view currency);

}  // namespace payrail::infra::rates
