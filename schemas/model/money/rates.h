// Exchange rates: the fixed reference table test mode quotes (docs/catalog.md "Rates"), how a
// rate between any two of its codes is derived, and the two conversions money moves through.
// Everything is exact decimal arithmetic (schemas/model/money/money.h); nothing touches floating
// point.
//
// The table holds one mid rate against the US dollar per code, in the direction the market
// quotes it: most currencies as units per USD (MXN 18.45), EUR, GBP and the crypto assets as USD
// per unit (EUR 1.16, ETH 3,000). USDC and USDT sit at their 1.00 peg. The levels are
// representative mid-market rates, rounded, fixed at kReferenceRatesAsOf so that test results are
// reproducible; they are not market data.
//
// Rates. rate(from, to) is the number of `to` units one `from` unit buys: the exact quotient of
// the two USD values, rounded half up to kRateScale (12) decimals, trailing zeros removed.
// `inverse` is rate(to, from), derived and rounded the same way on its own (not 1 / rate).
//
// Conversions use the published rate itself, never a more precise hidden value, so anyone holding
// the rate string can recompute the result to the unit:
//   usdc_needed:   fiat payout funding, amount / rate(USDC -> currency), rounded UP to 6
//                  decimals (the organization never pays out more than it was charged for).
//   usdc_credited: collection credit, amount * rate(currency -> USDC), rounded DOWN to 6 decimals
//                  (never credits USDC that did not arrive).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "schemas/model/money/money.h"

namespace payrail::model {

inline constexpr int kRateScale = 12;
inline constexpr int kUsdcScale = 6;
inline constexpr std::string_view kReferenceRatesAsOf = "2025-12-01T00:00:00Z";

enum class Quote {
  units_per_usd,  // `mid` units of the code buy one US dollar
  usd_per_unit,   // one unit of the code is worth `mid` US dollars
};

struct ReferenceRate {
  std::string_view code;  // ISO 4217 currency or asset (USDC, USDT, ETH)
  std::string_view mid;   // decimal string
  Quote quote;
};

// Every code the reference table quotes, fiat currencies first.
std::span<const ReferenceRate> reference_rates();
bool has_reference_rate(std::string_view code);

struct ExchangeRate {
  std::string from;
  std::string to;
  Decimal rate;       // `to` units per `from` unit
  Decimal inverse;    // `from` units per `to` unit
  std::string as_of;  // ISO 8601 UTC: when the source fixed this rate
};

// The reference rate between two codes of the table (equal codes give 1), or nullopt when either
// is not in it.
std::optional<ExchangeRate> reference_rate(std::string_view from, std::string_view to);

// USDC to hold for a fiat payout of `amount`: amount / usdc_to_currency.rate, rounded up to 6
// decimals. `usdc_to_currency` must be a USDC -> currency rate (std::invalid_argument otherwise).
Decimal usdc_needed(const Decimal& amount, const ExchangeRate& usdc_to_currency);

// USDC to credit for a collection of `amount`: amount * currency_to_usdc.rate, rounded down to 6
// decimals. `currency_to_usdc` must be a currency -> USDC rate (std::invalid_argument otherwise).
Decimal usdc_credited(const Decimal& amount, const ExchangeRate& currency_to_usdc);

}  // namespace payrail::model
