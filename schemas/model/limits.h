// Payout limits in USD (docs/api.md "Limits"), the defaults per mode, and the fixed
// test-mode valuation table used to value amounts in USD.
#pragma once

#include <optional>
#include <string>

#include "schemas/model/mode.h"
#include "schemas/model/money.h"

namespace payrail::model {

struct PayoutLimits {
  Decimal auto_approval_usd;  // amounts at or below proceed without approval
  Decimal per_payout_usd;
  Decimal daily_usd;    // UTC calendar day
  Decimal monthly_usd;  // UTC calendar month
};

PayoutLimits default_payout_limits(Mode mode);

// USD per unit of the asset: USDC and USDT at their 1.00 peg, ETH at a fixed reference mid rate
// of 3,000.00 (docs/limits.md). Used only to value amounts against limits.
Decimal usd_rate(Asset asset);
Decimal value_in_usd(const Decimal& amount, Asset asset);

}  // namespace payrail::model
