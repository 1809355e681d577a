#include "infra/adapters/evm/bytes.h"

#include <cctype>

#include "schemas/model/common/hex.h"
#include "schemas/model/payouts/keccak.h"

namespace payrail::infra::evm {
namespace {

constexpr char kDigits[] = "0123456789abcdef";

bool has_prefix(std::string_view text) {
  return text.size() >= 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
}

// EIP-55: hex letter i is uppercase exactly when nibble i of keccak256(lowercase hex) >= 8.
std::string checksum_case(const std::string& lowercase_digits) {
  const Hash hash = keccak(lowercase_digits);
  std::string text = lowercase_digits;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const int nibble = i % 2 == 0 ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f;
    if (nibble >= 8) text[i] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[i])));
  }
  return text;
}

}  // namespace

Hash keccak(std::string_view bytes) {
  return model::keccak256(bytes);
}

std::string to_hex(std::string_view bytes) {
  std::string text = "0x";
  text.reserve(2 + bytes.size() * 2);
  for (const char byte : bytes) {
    const auto value = static_cast<std::uint8_t>(byte);
    text.push_back(kDigits[value >> 4]);
    text.push_back(kDigits[value & 0x0f]);
  }
  return text;
}

std::string to_hex(const Hash& hash) {
  return to_hex(std::string_view(reinterpret_cast<const char*>(hash.data()), hash.size()));
}

std::optional<Bytes> from_hex(std::string_view text) {
  if (!has_prefix(text) || text.size() % 2 != 0) return std::nullopt;
  Bytes bytes;
  bytes.reserve((text.size() - 2) / 2);
  for (std::size_t i = 2; i < text.size(); i += 2) {
    const int high = model::hex_digit_value(text[i]);
    const int low = model::hex_digit_value(text[i + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    bytes.push_back(static_cast<char>(high << 4 | low));
  }
  return bytes;
}

std::optional<Hash> hash_from_hex(std::string_view text) {
  const auto bytes = from_hex(text);
  if (!bytes || bytes->size() != 32) return std::nullopt;
  Hash hash{};
  for (std::size_t i = 0; i < hash.size(); ++i) hash[i] = static_cast<std::uint8_t>((*bytes)[i]);
  return hash;
}

std::string Address::lowercase() const {
  return to_hex(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
}

std::string Address::checksummed() const {
  return "0x" + checksum_case(lowercase().substr(2));
}

std::optional<Address> address_from_bytes(std::string_view bytes) {
  if (bytes.size() != 20) return std::nullopt;
  Address address;
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    address.bytes[i] = static_cast<std::uint8_t>(bytes[i]);
  }
  return address;
}

std::optional<Address> parse_address(std::string_view text) {
  if (text.size() != 42 || text[0] != '0' || text[1] != 'x') return std::nullopt;
  const auto bytes = from_hex(text);
  if (!bytes) return std::nullopt;
  const auto address = address_from_bytes(*bytes);
  const std::string_view digits = text.substr(2);
  bool lower = false;
  bool upper = false;
  for (const char digit : digits) {
    lower = lower || (digit >= 'a' && digit <= 'f');
    upper = upper || (digit >= 'A' && digit <= 'F');
  }
  if (lower && upper && checksum_case(address->lowercase().substr(2)) != digits) {
    return std::nullopt;
  }
  return address;
}

}  // namespace payrail::infra::evm
