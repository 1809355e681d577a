#include "infra/adapters/evm/uint256.h"

#include <algorithm>

#include "schemas/model/common/hex.h"

namespace payrail::infra::evm {
namespace {

using Wide = unsigned __int128;

// value * factor + addend, or nullopt when it does not fit 256 bits.
std::optional<U256> multiply_add(const U256& value, std::uint64_t factor, std::uint64_t addend) {
  auto product = checked_multiply(value, U256(factor));
  if (!product) return std::nullopt;
  return checked_add(*product, U256(addend));
}

}  // namespace

U256 U256::max() {
  U256 value;
  value.limbs_.fill(~std::uint64_t{0});
  return value;
}

std::optional<U256> U256::from_big_endian(std::string_view bytes) {
  if (bytes.size() > 32) return std::nullopt;
  U256 value;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const std::size_t from_end = bytes.size() - 1 - i;  // byte position, least significant = 0
    value.limbs_[from_end / 8] |= static_cast<std::uint64_t>(static_cast<std::uint8_t>(bytes[i]))
                                  << (8 * (from_end % 8));
  }
  return value;
}

std::optional<U256> U256::from_decimal(std::string_view digits) {
  if (digits.empty() || (digits.size() > 1 && digits[0] == '0')) return std::nullopt;
  U256 value;
  for (const char digit : digits) {
    if (digit < '0' || digit > '9') return std::nullopt;
    auto next = multiply_add(value, 10, static_cast<std::uint64_t>(digit - '0'));
    if (!next) return std::nullopt;
    value = *next;
  }
  return value;
}

std::optional<U256> U256::from_quantity(std::string_view text) {
  if (text.size() < 3 || text[0] != '0' || (text[1] != 'x' && text[1] != 'X')) return std::nullopt;
  std::string_view digits = text.substr(2);
  while (digits.size() > 1 && digits[0] == '0') digits.remove_prefix(1);
  if (digits.size() > 64) return std::nullopt;
  U256 value;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    const int nibble = model::hex_digit_value(digits[i]);
    if (nibble < 0) return std::nullopt;
    const std::size_t position = digits.size() - 1 - i;  // nibble position, least significant = 0
    value.limbs_[position / 16] |= static_cast<std::uint64_t>(nibble) << (4 * (position % 16));
  }
  return value;
}

std::array<std::uint8_t, 32> U256::to_word() const {
  std::array<std::uint8_t, 32> word{};
  for (std::size_t i = 0; i < 32; ++i) {
    const std::size_t from_end = 31 - i;
    word[i] = static_cast<std::uint8_t>(limbs_[from_end / 8] >> (8 * (from_end % 8)));
  }
  return word;
}

std::string U256::to_minimal_big_endian() const {
  const auto word = to_word();
  const auto first = std::find_if(word.begin(), word.end(), [](std::uint8_t b) { return b != 0; });
  return std::string(first, word.end());
}

std::string U256::to_decimal() const {
  std::string digits;
  U256 rest = *this;
  do {
    std::uint64_t digit = 0;
    rest = rest.divide(10, digit);
    digits.push_back(static_cast<char>('0' + digit));
  } while (!rest.is_zero());
  std::reverse(digits.begin(), digits.end());
  return digits;
}

std::string U256::to_quantity() const {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string digits;
  for (int limb = 3; limb >= 0; --limb) {
    for (int shift = 60; shift >= 0; shift -= 4) {
      const auto nibble = (limbs_[static_cast<std::size_t>(limb)] >> shift) & 0x0f;
      if (digits.empty() && nibble == 0) continue;
      digits.push_back(kDigits[nibble]);
    }
  }
  return "0x" + (digits.empty() ? std::string("0") : digits);
}

std::optional<std::uint64_t> U256::to_uint64() const {
  if (limbs_[1] != 0 || limbs_[2] != 0 || limbs_[3] != 0) return std::nullopt;
  return limbs_[0];
}

std::strong_ordering operator<=>(const U256& a, const U256& b) {
  for (int limb = 3; limb >= 0; --limb) {
    const auto i = static_cast<std::size_t>(limb);
    if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] <=> b.limbs_[i];
  }
  return std::strong_ordering::equal;
}

std::optional<U256> checked_add(const U256& a, const U256& b) {
  U256 sum;
  Wide carry = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const Wide total = static_cast<Wide>(a.limbs_[i]) + b.limbs_[i] + carry;
    sum.limbs_[i] = static_cast<std::uint64_t>(total);
    carry = total >> 64;
  }
  if (carry != 0) return std::nullopt;
  return sum;
}

std::optional<U256> checked_subtract(const U256& a, const U256& b) {
  if (a < b) return std::nullopt;
  U256 difference;
  std::uint64_t borrow = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const std::uint64_t minuend = a.limbs_[i];
    const std::uint64_t subtrahend = b.limbs_[i];
    difference.limbs_[i] = minuend - subtrahend - borrow;  // unsigned: wraps by definition
    borrow = (minuend < subtrahend || minuend - subtrahend < borrow) ? 1 : 0;
  }
  return difference;
}

std::optional<U256> checked_multiply(const U256& a, const U256& b) {
  std::array<std::uint64_t, 8> product{};
  for (std::size_t i = 0; i < 4; ++i) {
    Wide carry = 0;
    for (std::size_t j = 0; j < 4; ++j) {
      const Wide partial = static_cast<Wide>(a.limbs_[i]) * b.limbs_[j] + product[i + j] + carry;
      product[i + j] = static_cast<std::uint64_t>(partial);
      carry = partial >> 64;
    }
    product[i + 4] = static_cast<std::uint64_t>(carry);
  }
  if (product[4] != 0 || product[5] != 0 || product[6] != 0 || product[7] != 0) {
    return std::nullopt;
  }
  U256 result;
  std::copy(product.begin(), product.begin() + 4, result.limbs_.begin());
  return result;
}

U256 U256::divide(std::uint64_t divisor, std::uint64_t& remainder) const {
  U256 quotient;
  Wide rest = 0;
  for (int limb = 3; limb >= 0; --limb) {
    const auto i = static_cast<std::size_t>(limb);
    const Wide current = (rest << 64) | limbs_[i];
    quotient.limbs_[i] = static_cast<std::uint64_t>(current / divisor);
    rest = current % divisor;
  }
  remainder = static_cast<std::uint64_t>(rest);
  return quotient;
}

std::optional<U256> power_of_ten(int exponent) {
  if (exponent < 0) return std::nullopt;
  U256 value(1);
  for (int i = 0; i < exponent; ++i) {
    auto next = checked_multiply(value, U256(10));
    if (!next) return std::nullopt;
    value = *next;
  }
  return value;
}

}  // namespace payrail::infra::evm
