// Assets and exact decimal amounts. Money never touches floating point: an amount is an integer
// count of units at a decimal scale, parsed from and printed to canonical decimal strings.
//
// Limits. An API amount has at most 20 integer digits and at most 18 fractional digits (ETH's
// precision), so its units fit in 38 decimal digits; text read from the database may have at
// most 38 digits in total. Units are an __int128 (|units| up to about 1.7e38, so every 38-digit
// value) and scales run from 0 to 38. Arithmetic is exact; an operation whose exact result does
// not fit __int128 or needs a scale above 38 throws std::overflow_error rather than returning a
// wrong amount. At 18 decimals that leaves room for values up to about 1.7e20, so sums of
// realistic amounts never throw; products of two large values can.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::model {

enum class Asset { USDC, USDT, ETH };

// Exact, case-sensitive: only "USDC", "USDT" and "ETH".
std::optional<Asset> parse_asset(std::string_view text);
std::string_view asset_name(Asset asset);
// Number of fractional digits the asset's smallest unit allows (USDC 6, USDT 6, ETH 18).
int asset_precision(Asset asset);

// Most decimal digits a Decimal carries, in units and in scale.
inline constexpr int kMaxDecimalDigits = 38;
// Most integer digits an API amount may have.
inline constexpr int kMaxAmountIntegerDigits = 20;

// The exact value units / 10^scale.
struct Decimal {
  __int128 units = 0;
  int scale = 0;
};

// Parses a positive API amount: ^(0|[1-9][0-9]*)(\.[0-9]+)?$, at most 20 integer digits and at
// most `max_scale` fractional digits, value > 0. The result keeps the text's own scale. Errors
// are bad_request with param `param` and a message naming the exact problem.
Result<Decimal> parse_amount(std::string_view text, int max_scale, std::string_view param);

// Parses NUMERIC text from the database: same grammar, zero allowed, at most 38 digits in total.
std::optional<Decimal> parse_decimal(std::string_view text);

// Prints exactly `scale` fractional digits ("0.50" for units 50 scale 2, "7" for scale 0).
std::string format_decimal(const Decimal& value);

// The same value at a larger or equal scale. Decreasing the scale would lose digits: asserts.
Decimal rescale(const Decimal& value, int scale);

// -1, 0 or 1 as a is less than, equal to or greater than b; scales may differ.
int compare(const Decimal& a, const Decimal& b);

// Exact sum and difference at the larger of the two scales.
Decimal add(const Decimal& a, const Decimal& b);
Decimal subtract(const Decimal& a, const Decimal& b);

// Exact product; its scale is a.scale + b.scale.
Decimal multiply(const Decimal& a, const Decimal& b);

bool is_positive(const Decimal& value);

// How a result with more digits than wanted is cut to its scale. Stated for the magnitude, so
// they are symmetric around zero: `down` drops the extra digits (toward zero), `up` rounds any
// non-zero remainder away from zero, `half_up` rounds to the nearest and a tie away from zero.
enum class Rounding { down, up, half_up };

// The value at `scale` digits, rounded when `scale` is below the value's own scale (a larger
// scale only appends zeros, exactly).
Decimal round_to_scale(const Decimal& value, int scale, Rounding rounding);

// dividend / divisor at `scale` fractional digits, rounded once from the exact quotient. The
// divisor must not be zero (std::domain_error). Throws std::overflow_error when the dividend
// shifted to the result's scale does not fit 38 digits; for an API amount (at most 20 integer
// digits) divided by a rate of at most 12 decimals into 6 decimals it always fits.
Decimal divide(const Decimal& dividend, const Decimal& divisor, int scale, Rounding rounding);

// The same value without trailing fractional zeros ("17.150" -> "17.15", "3000.00" -> "3000").
Decimal trim_zeros(const Decimal& value);

}  // namespace payrail::model
