// Decimal amounts: parse_amount and parse_decimal never crash or overflow (UBSan watches the
// __int128 arithmetic), and what they accept prints back to the same value.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "schemas/model/money.h"

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
    // At most 20 integer and 18 fractional digits: doubling and rescaling to 18 places (ETH's
    // precision) must fit the 38 digits of NUMERIC (they throw if not; a throw is a finding).
    (void)add(*amount, *amount);
    (void)rescale(*amount, 18);
  }
  if (auto decimal = parse_decimal(text)) {
    auto reparsed = parse_decimal(format_decimal(*decimal));
    if (!reparsed || compare(*reparsed, *decimal) != 0) std::abort();
  }
  return 0;
}
