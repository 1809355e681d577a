#include "schemas/model/money/money.h"

#include <algorithm>
#include <cassert>
#include <limits>
#include <stdexcept>

namespace payrail::model {
namespace {

constexpr __int128 power_of_ten(int exponent) {
  __int128 result = 1;
  for (int i = 0; i < exponent; ++i) result *= 10;
  return result;
}

// Scales above 38 would leave no room for any integer digit in __int128.
void check_scale(int scale) {
  if (scale < 0 || scale > kMaxDecimalDigits) {
    throw std::overflow_error("decimal scale outside 0..38");
  }
}

// Why a string is not a plain decimal, most specific reason first.
enum class Syntax {
  ok,
  empty,
  whitespace,
  sign,
  exponent,
  invalid_character,
  multiple_points,
  missing_integer_digits,
  missing_fraction_digits,
  leading_zero,
};

struct DecimalText {
  std::string_view integer_digits;
  std::string_view fraction_digits;
};

bool is_digit(char c) {
  return c >= '0' && c <= '9';
}
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

Syntax check_characters(std::string_view text) {
  if (text.empty()) return Syntax::empty;
  if (std::any_of(text.begin(), text.end(), is_space)) return Syntax::whitespace;
  if (text.front() == '+' || text.front() == '-') return Syntax::sign;
  if (text.find_first_of("eE") != std::string_view::npos) return Syntax::exponent;
  for (char c : text) {
    if (!is_digit(c) && c != '.') return Syntax::invalid_character;
  }
  if (std::count(text.begin(), text.end(), '.') > 1) return Syntax::multiple_points;
  return Syntax::ok;
}

// Checks ^(0|[1-9][0-9]*)(\.[0-9]+)?$ and splits the text at the decimal point.
Syntax split_decimal(std::string_view text, DecimalText& parts) {
  Syntax syntax = check_characters(text);
  if (syntax != Syntax::ok) return syntax;
  std::size_t point = text.find('.');
  parts.integer_digits = text.substr(0, point);
  parts.fraction_digits =
      point == std::string_view::npos ? std::string_view() : text.substr(point + 1);
  if (parts.integer_digits.empty()) return Syntax::missing_integer_digits;
  if (point != std::string_view::npos && parts.fraction_digits.empty()) {
    return Syntax::missing_fraction_digits;
  }
  if (parts.integer_digits.size() > 1 && parts.integer_digits.front() == '0') {
    return Syntax::leading_zero;
  }
  return Syntax::ok;
}

// Callers have bounded the digit count to 38, so the accumulation cannot overflow.
Decimal to_decimal(const DecimalText& parts) {
  Decimal value;
  for (char c : parts.integer_digits) value.units = value.units * 10 + (c - '0');
  for (char c : parts.fraction_digits) value.units = value.units * 10 + (c - '0');
  value.scale = static_cast<int>(parts.fraction_digits.size());
  return value;
}

std::string syntax_message(Syntax syntax, std::string_view param) {
  std::string name(param);
  switch (syntax) {
    case Syntax::empty:
      return name + " must not be empty";
    case Syntax::whitespace:
      return name + " must not contain whitespace";
    case Syntax::sign:
      return name + " must be written without a sign";
    case Syntax::exponent:
      return name + " must not use exponent notation";
    case Syntax::multiple_points:
      return name + " must contain at most one decimal point";
    case Syntax::missing_integer_digits:
      return name + " must have at least one digit before the decimal point";
    case Syntax::missing_fraction_digits:
      return name + " must have at least one digit after the decimal point";
    case Syntax::leading_zero:
      return name + " must not have leading zeros";
    default:
      return name + " must be a decimal string such as \"12.50\"";
  }
}

std::string too_many_decimals_message(std::string_view param, int max_scale) {
  std::string name(param);
  if (max_scale <= 0) return name + " must be a whole number";
  std::string places = max_scale == 1 ? " decimal place" : " decimal places";
  return name + " has more than " + std::to_string(max_scale) + places;
}

}  // namespace

std::optional<Asset> parse_asset(std::string_view text) {
  if (text == "USDC") return Asset::USDC;
  if (text == "USDT") return Asset::USDT;
  if (text == "ETH") return Asset::ETH;
  return std::nullopt;
}

std::string_view asset_name(Asset asset) {
  switch (asset) {
    case Asset::USDC:
      return "USDC";
    case Asset::USDT:
      return "USDT";
    case Asset::ETH:
      return "ETH";
  }
  return "";
}

int asset_precision(Asset asset) {
  return asset == Asset::ETH ? 18 : 6;
}

Result<Decimal> parse_amount(std::string_view text, int max_scale, std::string_view param) {
  std::string name(param);
  DecimalText parts;
  Syntax syntax = split_decimal(text, parts);
  if (syntax != Syntax::ok) return bad_request(syntax_message(syntax, param), name);
  if (parts.integer_digits.size() > static_cast<std::size_t>(kMaxAmountIntegerDigits)) {
    return bad_request(name + " has more than 20 integer digits", name);
  }
  if (parts.fraction_digits.size() > static_cast<std::size_t>(std::max(max_scale, 0))) {
    return bad_request(too_many_decimals_message(param, max_scale), name);
  }
  // Only reachable when a caller allows more than 18 decimals.
  if (parts.integer_digits.size() + parts.fraction_digits.size() > kMaxDecimalDigits) {
    return bad_request(name + " has more than 38 digits", name);
  }
  Decimal value = to_decimal(parts);
  if (!is_positive(value)) return bad_request(name + " must be greater than zero", name);
  return value;
}

std::optional<Decimal> parse_decimal(std::string_view text) {
  DecimalText parts;
  if (split_decimal(text, parts) != Syntax::ok) return std::nullopt;
  if (parts.integer_digits.size() + parts.fraction_digits.size() > kMaxDecimalDigits) {
    return std::nullopt;
  }
  return to_decimal(parts);
}

std::string format_decimal(const Decimal& value) {
  assert(value.scale >= 0 && value.scale <= kMaxDecimalDigits);
  bool negative = value.units < 0;
  // Unsigned so that the magnitude of any __int128, even the minimum, is representable.
  unsigned __int128 rest = negative ? -static_cast<unsigned __int128>(value.units)
                                    : static_cast<unsigned __int128>(value.units);
  std::string digits;
  do {
    digits.push_back(static_cast<char>('0' + static_cast<int>(rest % 10)));
    rest /= 10;
  } while (rest != 0);
  auto scale = static_cast<std::size_t>(value.scale);
  if (digits.size() <= scale) digits.append(scale + 1 - digits.size(), '0');
  std::reverse(digits.begin(), digits.end());
  if (scale > 0) digits.insert(digits.size() - scale, 1, '.');
  return negative ? "-" + digits : digits;
}

Decimal rescale(const Decimal& value, int scale) {
  assert(scale >= value.scale);
  // Release builds drop the assert; losing digits of money silently is never acceptable.
  if (scale < value.scale) throw std::invalid_argument("rescale cannot reduce the scale");
  check_scale(scale);
  __int128 units = 0;
  if (__builtin_mul_overflow(value.units, power_of_ten(scale - value.scale), &units)) {
    throw std::overflow_error("decimal rescale overflows");
  }
  return Decimal{units, scale};
}

int compare(const Decimal& a, const Decimal& b) {
  // Integer parts first, then fractions at the common scale: no rescaling of whole values, so
  // comparison itself can never overflow. Truncation toward zero keeps the order monotonic.
  __int128 a_integer = a.units / power_of_ten(a.scale);
  __int128 b_integer = b.units / power_of_ten(b.scale);
  if (a_integer != b_integer) return a_integer < b_integer ? -1 : 1;
  int scale = std::max(a.scale, b.scale);
  __int128 a_fraction = (a.units % power_of_ten(a.scale)) * power_of_ten(scale - a.scale);
  __int128 b_fraction = (b.units % power_of_ten(b.scale)) * power_of_ten(scale - b.scale);
  if (a_fraction == b_fraction) return 0;
  return a_fraction < b_fraction ? -1 : 1;
}

Decimal add(const Decimal& a, const Decimal& b) {
  int scale = std::max(a.scale, b.scale);
  __int128 units = 0;
  if (__builtin_add_overflow(rescale(a, scale).units, rescale(b, scale).units, &units)) {
    throw std::overflow_error("decimal addition overflows");
  }
  return Decimal{units, scale};
}

Decimal subtract(const Decimal& a, const Decimal& b) {
  int scale = std::max(a.scale, b.scale);
  __int128 units = 0;
  if (__builtin_sub_overflow(rescale(a, scale).units, rescale(b, scale).units, &units)) {
    throw std::overflow_error("decimal subtraction overflows");
  }
  return Decimal{units, scale};
}

Decimal multiply(const Decimal& a, const Decimal& b) {
  int scale = a.scale + b.scale;
  check_scale(scale);
  __int128 units = 0;
  if (__builtin_mul_overflow(a.units, b.units, &units)) {
    throw std::overflow_error("decimal multiplication overflows");
  }
  return Decimal{units, scale};
}

bool is_positive(const Decimal& value) {
  return value.units > 0;
}

namespace {

// quotient rounded by `rounding` given the remainder of the same division (|remainder| < divisor,
// both magnitudes; divisor > 0).
unsigned __int128 rounded_quotient(unsigned __int128 quotient, unsigned __int128 remainder,
                                   unsigned __int128 divisor, Rounding rounding) {
  if (remainder == 0) return quotient;
  switch (rounding) {
    case Rounding::down:
      return quotient;
    case Rounding::up:
      return quotient + 1;
    case Rounding::half_up:
      // remainder >= divisor - remainder  <=>  remainder / divisor >= 1/2, without overflow.
      return remainder >= divisor - remainder ? quotient + 1 : quotient;
  }
  return quotient;
}

unsigned __int128 magnitude(__int128 value) {
  return value < 0 ? -static_cast<unsigned __int128>(value) : static_cast<unsigned __int128>(value);
}

Decimal signed_result(unsigned __int128 units, bool negative, int scale) {
  if (units > static_cast<unsigned __int128>(std::numeric_limits<__int128>::max())) {
    throw std::overflow_error("decimal result overflows");
  }
  const auto value = static_cast<__int128>(units);
  return Decimal{negative ? -value : value, scale};
}

unsigned __int128 checked_shift(unsigned __int128 value, int digits) {
  if (digits > kMaxDecimalDigits) throw std::overflow_error("decimal division overflows");
  unsigned __int128 shifted = 0;
  if (__builtin_mul_overflow(value, static_cast<unsigned __int128>(power_of_ten(digits)),
                             &shifted) ||
      shifted > static_cast<unsigned __int128>(std::numeric_limits<__int128>::max())) {
    throw std::overflow_error("decimal division overflows");
  }
  return shifted;
}

}  // namespace

Decimal round_to_scale(const Decimal& value, int scale, Rounding rounding) {
  if (scale >= value.scale) return rescale(value, scale);
  check_scale(scale);
  const auto divisor = static_cast<unsigned __int128>(power_of_ten(value.scale - scale));
  const auto units = magnitude(value.units);
  return signed_result(rounded_quotient(units / divisor, units % divisor, divisor, rounding),
                       value.units < 0, scale);
}

Decimal divide(const Decimal& dividend, const Decimal& divisor, int scale, Rounding rounding) {
  if (divisor.units == 0) throw std::domain_error("decimal division by zero");
  check_scale(scale);
  // dividend / divisor = (a / 10^sa) / (b / 10^sb); at `scale` digits the result's units are
  // a * 10^(scale + sb - sa) / b. A negative exponent moves to the divisor instead.
  auto numerator = magnitude(dividend.units);
  auto denominator = magnitude(divisor.units);
  const int exponent = scale + divisor.scale - dividend.scale;
  if (exponent >= 0) {
    numerator = checked_shift(numerator, exponent);
  } else {
    denominator = checked_shift(denominator, -exponent);
  }
  const bool negative = (dividend.units < 0) != (divisor.units < 0);
  return signed_result(
      rounded_quotient(numerator / denominator, numerator % denominator, denominator, rounding),
      negative, scale);
}

Decimal trim_zeros(const Decimal& value) {
  Decimal trimmed = value;
  while (trimmed.scale > 0 && trimmed.units % 10 == 0) {
    trimmed.units /= 10;
    --trimmed.scale;
  }
  return trimmed;
}

}  // namespace payrail::model
