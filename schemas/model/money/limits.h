// Payout limits in USD (docs/api.md "Limits"), the defaults per mode, and how an amount is
// valued in USD for them: with the reference rates table (schemas/model/money/rates.h), the one
// source stablecoin and fiat payouts share, so both count against the same USD limits alike.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/money/money.h"

namespace payrail::model {

struct PayoutLimits {
  Decimal auto_approval_usd;  // amounts at or below proceed without approval
  Decimal per_payout_usd;
  Decimal daily_usd;    // UTC calendar day
  Decimal monthly_usd;  // UTC calendar month
};

PayoutLimits default_payout_limits(Mode mode);

// amount * rate(code -> USD) of the reference table: exact, at the amount's scale plus the
// rate's (USDC and USDT at 1, ETH at 3,000, a fiat currency at its 12-decimal USD rate).
// nullopt for a code the table does not quote.
std::optional<Decimal> value_in_usd(const Decimal& amount, std::string_view code);
Decimal value_in_usd(const Decimal& amount, Asset asset);

}  // namespace payrail::model
