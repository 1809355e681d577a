// Byte strings, hashes and addresses as the EVM pieces pass them around, and their hex text.
// Raw bytes live in std::string (what Keccak, libcurl and the data key take); the fixed-size
// values (a 32-byte hash, a 20-byte address) are arrays so that a wrong length cannot compile.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::evm {

using Bytes = std::string;
using Hash = std::array<std::uint8_t, 32>;

// Keccak-256 of `bytes` (schemas/model/payouts/keccak.h).
Hash keccak(std::string_view bytes);

// "0x" followed by two lowercase hex digits per byte ("0x" for no bytes).
std::string to_hex(std::string_view bytes);
std::string to_hex(const Hash& hash);
// "0x" followed by an even number of hex digits (either case); nullopt otherwise.
std::optional<Bytes> from_hex(std::string_view text);
// Exactly 32 bytes of hex ("0x" + 64 digits).
std::optional<Hash> hash_from_hex(std::string_view text);

struct Address {
  std::array<std::uint8_t, 20> bytes{};
  friend bool operator==(const Address&, const Address&) = default;

  Bytes raw() const { return Bytes(bytes.begin(), bytes.end()); }
  // EIP-55 mixed-case text ("0xf39Fd6e5..."), as wallets and explorers print it.
  std::string checksummed() const;
  // All lowercase ("0xf39fd6e5..."), as nodes answer it.
  std::string lowercase() const;
};

// "0x" followed by 40 hex digits. All-lowercase and all-uppercase digits are accepted as is;
// mixed case must carry a valid EIP-55 checksum (a typo in a checksummed address is caught).
std::optional<Address> parse_address(std::string_view text);
std::optional<Address> address_from_bytes(std::string_view bytes);  // exactly 20 bytes

}  // namespace payrail::infra::evm
