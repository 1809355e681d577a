// Decimal amounts: parse_amount and parse_decimal never crash or overflow (UBSan watches the
// __int128 arithmetic), and what they accept prints back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <string_view>

#include "schemas/model/money/money.h"

using namespace payrail::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const int max_scale = data[0] % 19;  // 0..18: asset precisions
  const std::string_view text(reinterpret_cast<const char*>(data) + 1, size - 1);
  auto amount = parse_amount(text, max_scale, "amount");
  if (amount.ok()) {
    if (!is_positive(*amount) || amount->scale > max_scale) std::abort();
    const auto printed = format_decimal(*amount);
    auto reparsed = parse_decimal(printed);
    if (!reparsed || compare(*reparsed, *amount) != 0) std::abort();
    // At most 20 integer and 18 fractional digits: rescaling to 18 places (ETH's precision)
    // always fits the 38 digits of NUMERIC (it throws if not; a throw is a finding).
    (void)rescale(*amount, 18);
    // Doubling is exact, or, when the units exceed half the __int128 range (a 38-digit amount
    // can), an overflow_error instead of a wrapped value; anything else is a finding.
    const __int128 half_range = static_cast<__int128>(~static_cast<unsigned __int128>(0) >> 2);
    try {
      if (compare(subtract(add(*amount, *amount), *amount), *amount) != 0) std::abort();
    } catch (const std::overflow_error&) {
      if (amount->units <= half_range) std::abort();
    }
  }
  if (auto decimal = parse_decimal(text)) {
    auto reparsed = parse_decimal(format_decimal(*decimal));
    if (!reparsed || compare(*reparsed, *decimal) != 0) std::abort();
  }
  return 0;
}
