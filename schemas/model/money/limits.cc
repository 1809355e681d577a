#include "schemas/model/money/limits.h"

#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

Decimal whole(long long units) {
  return Decimal{static_cast<__int128>(units), 0};
}

}  // namespace

PayoutLimits default_payout_limits(Mode mode) {
  if (mode == Mode::test) {
    return {whole(10'000), whole(100'000), whole(1'000'000), whole(10'000'000)};
  }
  return {whole(1'000), whole(50'000), whole(250'000), whole(2'000'000)};
}

std::optional<Decimal> value_in_usd(const Decimal& amount, std::string_view code) {
  const auto rate = reference_rate(code, "USD");
  if (!rate) return std::nullopt;
  return multiply(amount, rate->rate);
}

Decimal value_in_usd(const Decimal& amount, Asset asset) {
  // Every asset is in the reference table (a unit test holds it).
  return *value_in_usd(amount, asset_name(asset));
}

}  // namespace payrail::model
