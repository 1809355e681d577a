#include "infra/adapters/evm/abi.h"

#include <algorithm>

#include "schemas/model/money/money.h"

namespace payrail::infra::evm::abi {
namespace {

constexpr int kDecimalsMax = 77;  // 10^77 is the largest power of ten below 2^256
constexpr std::size_t kWordBytes = 32;

Bytes word_bytes(const U256& value) {
  const auto word = value.to_word();
  return Bytes(word.begin(), word.end());
}

Bytes padded(std::string_view bytes) {
  Bytes out(bytes);
  out.append((kWordBytes - bytes.size() % kWordBytes) % kWordBytes, '\0');
  return out;
}

model::Error amount_error(const std::string& why) {
  return model::bad_request("amount " + why, "amount");
}

// The decimal amount's integer digits and fractional digits, or an error.
model::Result<model::Decimal> parse(std::string_view amount) {
  const auto value = model::parse_decimal(amount);
  if (!value) return amount_error("is not a decimal number of at most 38 digits");
  return *value;
}

}  // namespace

Bytes selector(std::string_view signature) {
  const Hash hash = keccak(signature);
  return Bytes(hash.begin(), hash.begin() + 4);
}

Bytes transfer_call(const Address& recipient, const U256& amount) {
  return selector("transfer(address,uint256)") + encode({word(recipient), word(amount)});
}

Bytes balance_of_call(const Address& holder) {
  return selector("balanceOf(address)") + encode({word(holder)});
}

Bytes encode(const std::vector<Argument>& arguments) {
  Bytes heads;
  Bytes tails;
  const std::size_t heads_size = arguments.size() * kWordBytes;
  for (const auto& argument : arguments) {
    if (const auto* static_value = std::get_if<Word>(&argument)) {
      heads += word_bytes(static_value->value);
      continue;
    }
    const auto& bytes = std::get<DynamicBytes>(argument).bytes;
    heads += word_bytes(U256(heads_size + tails.size()));  // the tail's offset
    tails += word_bytes(U256(bytes.size())) + padded(bytes);
  }
  return heads + tails;
}

model::Result<U256> decode_word(std::string_view returned) {
  if (returned.size() != kWordBytes) {
    return model::bad_request("a call returned " + std::to_string(returned.size()) +
                              " bytes where one 32-byte word was expected");
  }
  return *U256::from_big_endian(returned);
}

model::Result<U256> to_base_units(std::string_view amount, int decimals) {
  if (decimals < 0 || decimals > kDecimalsMax) {
    return model::bad_request("token decimals must be 0 to 77, not " + std::to_string(decimals));
  }
  auto value = parse(amount);
  if (!value.ok()) return std::move(value).error();
  model::Decimal trimmed = model::trim_zeros(*value);
  if (trimmed.scale > decimals) {
    return amount_error("has more fractional digits than the token's " + std::to_string(decimals) +
                        " decimals");
  }
  // The grammar has no sign, and 38 digits fit __int128: its 16 bytes are the magnitude.
  const auto magnitude = static_cast<unsigned __int128>(trimmed.units);
  Bytes big_endian(16, '\0');
  for (std::size_t i = 0; i < big_endian.size(); ++i) {
    big_endian[15 - i] = static_cast<char>(static_cast<std::uint8_t>(magnitude >> (8 * i)));
  }
  const U256 units = *U256::from_big_endian(big_endian);
  const auto scaled = checked_multiply(units, *power_of_ten(decimals - trimmed.scale));
  if (!scaled) return amount_error("does not fit 256 bits in base units");
  return *scaled;
}

std::string from_base_units(const U256& units, int decimals) {
  std::string digits = units.to_decimal();
  const auto scale = static_cast<std::size_t>(std::clamp(decimals, 0, kDecimalsMax));
  if (scale == 0) return digits;
  if (digits.size() <= scale) digits.insert(0, scale + 1 - digits.size(), '0');
  digits.insert(digits.size() - scale, 1, '.');
  return digits;
}

}  // namespace payrail::infra::evm::abi
