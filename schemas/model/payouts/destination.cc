#include "schemas/model/payouts/destination.h"

#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include "schemas/model/payouts/base58.h"
#include "schemas/model/payouts/keccak.h"

namespace payrail::model {
namespace {

constexpr std::string_view kAddressParam = "destination.address";
constexpr std::size_t kMaxAddressChars = 128;
constexpr std::size_t kEvmAddressChars = 42;
constexpr std::size_t kTronAddressChars = 34;
constexpr std::size_t kTronDecodedBytes = 25;
constexpr std::uint8_t kTronVersionByte = 0x41;
constexpr std::size_t kSolanaMinChars = 32;
constexpr std::size_t kSolanaMaxChars = 44;
constexpr std::size_t kSolanaDecodedBytes = 32;
constexpr std::string_view kBlockedSuffix = "0blocked";
constexpr std::string_view kFailSuffix = "0fail";

Error address_error(std::string message) {
  return Error::make(ErrorCode::unsupported_destination,
                     std::string(kAddressParam) + " " + std::move(message),
                     std::string(kAddressParam));
}

bool is_hex_char(char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}
bool is_lower_letter(char c) {
  return c >= 'a' && c <= 'z';
}
bool is_upper_letter(char c) {
  return c >= 'A' && c <= 'Z';
}
bool is_space(char c) {
  return c == ' ' || (c >= '\t' && c <= '\r');
}

template <class Predicate>
bool all_of(std::string_view text, Predicate predicate) {
  return std::all_of(text.begin(), text.end(), predicate);
}

std::string to_lower_ascii(std::string_view text) {
  std::string lower(text);
  for (char& c : lower) {
    if (is_upper_letter(c)) c = static_cast<char>(c - 'A' + 'a');
  }
  return lower;
}

// EIP-55: hex letter i is uppercase exactly when nibble i of keccak256(lowercase hex) >= 8.
bool has_valid_eip55_checksum(std::string_view hex) {
  std::array<std::uint8_t, 32> hash = keccak256(to_lower_ascii(hex));
  for (std::size_t i = 0; i < hex.size(); ++i) {
    if (!is_lower_letter(hex[i]) && !is_upper_letter(hex[i])) continue;
    int nibble = (i % 2 == 0) ? hash[i / 2] >> 4 : hash[i / 2] & 0x0f;
    if (is_upper_letter(hex[i]) != (nibble >= 8)) return false;
  }
  return true;
}

Status validate_evm_address(std::string_view address) {
  if (address.size() != kEvmAddressChars || !address.starts_with("0x") ||
      !all_of(address.substr(2), is_hex_char)) {
    return address_error("is not a valid EVM address: expected 0x followed by 40 hex digits");
  }
  std::string_view hex = address.substr(2);
  // Single-case hex carries no checksum, so only mixed case is checked.
  bool mixed_case = std::any_of(hex.begin(), hex.end(), is_lower_letter) &&
                    std::any_of(hex.begin(), hex.end(), is_upper_letter);
  if (mixed_case && !has_valid_eip55_checksum(hex)) {
    return address_error("has an invalid EIP-55 checksum");
  }
  return ok_status();
}

std::optional<std::array<unsigned char, 32>> sha256(std::string_view bytes) {
  std::array<unsigned char, 32> digest{};
  unsigned int length = 0;
  if (EVP_Digest(bytes.data(), bytes.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1 ||
      length != digest.size()) {
    return std::nullopt;
  }
  return digest;
}

// Base58check: the last 4 bytes are the first 4 bytes of SHA-256(SHA-256(the rest)).
Status check_tron_checksum(std::string_view decoded) {
  std::string_view payload = decoded.substr(0, kTronDecodedBytes - 4);
  std::optional<std::array<unsigned char, 32>> first = sha256(payload);
  std::optional<std::array<unsigned char, 32>> second;
  if (first) {
    second = sha256(std::string_view(reinterpret_cast<const char*>(first->data()), first->size()));
  }
  if (!second) return Error::make(ErrorCode::internal_error, "SHA-256 is unavailable");
  if (!std::equal(second->begin(), second->begin() + 4, decoded.begin() + payload.size(),
                  [](unsigned char a, char b) { return a == static_cast<unsigned char>(b); })) {
    return address_error("has an invalid base58check checksum");
  }
  return ok_status();
}

Status validate_tron_address(std::string_view address) {
  std::optional<std::string> decoded;
  if (address.size() == kTronAddressChars && address.front() == 'T') {
    decoded = base58_decode(address);
  }
  if (!decoded || decoded->size() != kTronDecodedBytes ||
      static_cast<std::uint8_t>(decoded->front()) != kTronVersionByte) {
    return address_error(
        "is not a valid Tron address: expected 34 base58 characters starting with T");
  }
  return check_tron_checksum(*decoded);
}

Status validate_solana_address(std::string_view address) {
  std::optional<std::string> decoded;
  if (address.size() >= kSolanaMinChars && address.size() <= kSolanaMaxChars) {
    decoded = base58_decode(address);
  }
  if (!decoded || decoded->size() != kSolanaDecodedBytes) {
    return address_error(
        "is not a valid Solana address: expected 32 to 44 base58 characters encoding 32 bytes");
  }
  return ok_status();
}

Status validate_address(Network network, std::string_view address) {
  if (is_evm_network(network)) return validate_evm_address(address);
  if (network == Network::tron) return validate_tron_address(address);
  return validate_solana_address(address);
}

// The trigger a test-mode address asks for by its suffix; none when it has neither suffix.
std::pair<TestTrigger, std::string_view> split_trigger(std::string_view address) {
  if (address.ends_with(kBlockedSuffix)) {
    return {TestTrigger::blocked, address.substr(0, address.size() - kBlockedSuffix.size())};
  }
  if (address.ends_with(kFailSuffix)) {
    return {TestTrigger::fail, address.substr(0, address.size() - kFailSuffix.size())};
  }
  return {TestTrigger::none, address};
}

// Trigger addresses keep the network's normal length and alphabet before the suffix, with no
// checksum (see the shapes in destination.h).
bool is_trigger_shape(Network network, std::string_view address, std::string_view prefix) {
  if (is_evm_network(network)) {
    return address.size() == kEvmAddressChars && prefix.starts_with("0x") &&
           all_of(prefix.substr(2), is_hex_char);
  }
  if (network == Network::tron) {
    return address.size() == kTronAddressChars && prefix.starts_with("T") &&
           all_of(prefix, is_base58_char);
  }
  return address.size() >= kSolanaMinChars && address.size() <= kSolanaMaxChars &&
         all_of(prefix, is_base58_char);
}

Status check_address_text(std::string_view address) {
  if (address.empty()) return address_error("is required");
  if (address.size() > kMaxAddressChars) return address_error("is longer than 128 characters");
  if (is_space(address.front()) || is_space(address.back())) {
    return address_error("must not have leading or trailing whitespace");
  }
  return ok_status();
}

}  // namespace

std::optional<Network> parse_network(std::string_view text) {
  for (Network network : {Network::polygon, Network::arbitrum, Network::optimism, Network::base,
                          Network::bsc, Network::ethereum, Network::tron, Network::solana}) {
    if (text == network_name(network)) return network;
  }
  return std::nullopt;
}

std::string_view network_name(Network network) {
  switch (network) {
    case Network::polygon:
      return "polygon";
    case Network::arbitrum:
      return "arbitrum";
    case Network::optimism:
      return "optimism";
    case Network::base:
      return "base";
    case Network::bsc:
      return "bsc";
    case Network::ethereum:
      return "ethereum";
    case Network::tron:
      return "tron";
    case Network::solana:
      return "solana";
  }
  return "";
}

bool is_evm_network(Network network) {
  return network != Network::tron && network != Network::solana;
}

bool network_supports(Network network, Asset asset) {
  if (is_evm_network(network)) return true;
  if (network == Network::tron) return asset == Asset::USDT;
  return asset == Asset::USDC || asset == Asset::USDT;
}

Result<Destination> validate_destination(std::string_view network_text, std::string_view address,
                                         Asset asset, Mode mode) {
  std::optional<Network> network = parse_network(network_text);
  if (!network) {
    return Error::make(ErrorCode::unsupported_destination,
                       "destination.network must be one of polygon, arbitrum, optimism, base, "
                       "bsc, ethereum, tron, solana",
                       "destination.network");
  }
  if (!network_supports(*network, asset)) {
    return Error::make(ErrorCode::unsupported_destination,
                       std::string(asset_name(asset)) + " is not supported on " +
                           std::string(network_name(*network)),
                       "currency");
  }
  if (Status text = check_address_text(address); !text) return std::move(text).error();
  auto [trigger, prefix] = split_trigger(address);
  if (mode == Mode::test && trigger != TestTrigger::none) {
    if (!is_trigger_shape(*network, address, prefix)) {
      return address_error("is not a valid " + std::string(network_name(*network)) +
                           " test trigger address");
    }
    return Destination{*network, std::string(address), trigger};
  }
  if (Status valid = validate_address(*network, address); !valid) {
    return std::move(valid).error();
  }
  return Destination{*network, std::string(address), TestTrigger::none};
}

std::string normalize_address_for_screening(Network network, std::string_view address) {
  return is_evm_network(network) ? to_lower_ascii(address) : std::string(address);
}

}  // namespace payrail::model
