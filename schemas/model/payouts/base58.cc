#include "schemas/model/payouts/base58.h"

#include <cstdint>
#include <vector>

namespace payrail::model {
namespace {

constexpr std::string_view kAlphabet = "123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";

int digit_value(char c) {
  std::size_t index = kAlphabet.find(c);
  return index == std::string_view::npos ? -1 : static_cast<int>(index);
}

}  // namespace

bool is_base58_char(char c) {
  return digit_value(c) >= 0;
}

std::optional<std::string> base58_decode(std::string_view text) {
  if (text.size() > kMaxBase58Chars) return std::nullopt;
  std::size_t leading_zeros = 0;
  while (leading_zeros < text.size() && text[leading_zeros] == '1') ++leading_zeros;
  // Big-endian base-256 magnitude, multiplied by 58 and added to digit by digit.
  std::vector<std::uint8_t> magnitude;
  for (char c : text.substr(leading_zeros)) {
    int carry = digit_value(c);
    if (carry < 0) return std::nullopt;
    for (auto it = magnitude.rbegin(); it != magnitude.rend(); ++it) {
      carry += 58 * *it;
      *it = static_cast<std::uint8_t>(carry & 0xff);
      carry >>= 8;
    }
    while (carry > 0) {
      magnitude.insert(magnitude.begin(), static_cast<std::uint8_t>(carry & 0xff));
      carry >>= 8;
    }
  }
  // A leading digit '1' after the zeros cannot occur, so the magnitude has no leading zero byte.
  std::string bytes(leading_zeros, '\0');
  bytes.append(magnitude.begin(), magnitude.end());
  return bytes;
}

}  // namespace payrail::model
