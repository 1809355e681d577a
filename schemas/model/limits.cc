#include "schemas/model/limits.h"

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

Decimal usd_rate(Asset asset) {
  switch (asset) {
    case Asset::USDC:
    case Asset::USDT:
      return Decimal{100, 2};
    case Asset::ETH:
      return Decimal{300000, 2};
  }
  return Decimal{100, 2};
}

Decimal value_in_usd(const Decimal& amount, Asset asset) {
  return multiply(amount, usd_rate(asset));
}

}  // namespace payrail::model
