// Unsigned 256-bit integers: token amounts in base units, wei, fees and EVM words. Arithmetic is
// checked (nullopt on overflow or underflow), never wrapping: a wrapped amount is a wrong payment.
#pragma once

#include <array>
#include <compare>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::evm {

class U256 {
 public:
  constexpr U256() = default;
  constexpr U256(std::uint64_t value) : limbs_{value, 0, 0, 0} {}  // NOLINT: a widening

  // At most 32 bytes, most significant first (an ABI word, an RLP scalar).
  static std::optional<U256> from_big_endian(std::string_view bytes);
  // ^(0|[1-9][0-9]*)$ up to 2^256 - 1.
  static std::optional<U256> from_decimal(std::string_view digits);
  // A JSON-RPC quantity: "0x" then 1 to 64 hex digits (leading zeros tolerated on input).
  static std::optional<U256> from_quantity(std::string_view text);
  static U256 max();

  // The 32-byte word, most significant byte first.
  std::array<std::uint8_t, 32> to_word() const;
  // The big-endian bytes without leading zeros ("" for zero): RLP's scalar encoding.
  std::string to_minimal_big_endian() const;
  std::string to_decimal() const;
  // "0x" + lowercase hex without leading zeros ("0x0" for zero), as JSON-RPC wants it.
  std::string to_quantity() const;
  std::optional<std::uint64_t> to_uint64() const;
  bool is_zero() const {
    return limbs_[0] == 0 && limbs_[1] == 0 && limbs_[2] == 0 && limbs_[3] == 0;
  }

  friend bool operator==(const U256&, const U256&) = default;
  friend std::strong_ordering operator<=>(const U256& a, const U256& b);

  friend std::optional<U256> checked_add(const U256& a, const U256& b);
  friend std::optional<U256> checked_subtract(const U256& a, const U256& b);
  friend std::optional<U256> checked_multiply(const U256& a, const U256& b);
  // Quotient, and the remainder in `remainder`. `divisor` must not be zero.
  U256 divide(std::uint64_t divisor, std::uint64_t& remainder) const;

 private:
  std::array<std::uint64_t, 4> limbs_{};  // least significant first
};

std::optional<U256> checked_add(const U256& a, const U256& b);
std::optional<U256> checked_subtract(const U256& a, const U256& b);
std::optional<U256> checked_multiply(const U256& a, const U256& b);

// 10^exponent for exponent 0-77 (the largest power of ten below 2^256); nullopt above.
std::optional<U256> power_of_ten(int exponent);

}  // namespace payrail::infra::evm
