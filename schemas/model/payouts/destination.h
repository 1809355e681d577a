// Payout destinations: which networks carry which assets, and which addresses are well formed.
//
// Networks and assets
//   polygon, arbitrum, optimism, base, bsc, ethereum (EVM): USDC, USDT, ETH
//   tron:   USDT
//   solana: USDC, USDT
//
// Address formats (no leading or trailing whitespace, at most 128 characters)
//   EVM:    "0x" followed by 40 hex digits. All-lowercase and all-uppercase hex are accepted
//           as is; mixed case must carry a valid EIP-55 checksum.
//   Tron:   34 base58 characters starting with "T" that decode to 25 bytes: 0x41, a 20-byte
//           account, then the first 4 bytes of SHA-256(SHA-256(the first 21 bytes)).
//   Solana: 32 to 44 base58 characters that decode to exactly 32 bytes.
//
// Test-mode triggers (test mode only; in live mode these are invalid addresses)
//   An address ending in "0blocked" is screened as blocked; one ending in "0fail" fails on
//   chain. The suffix is not valid hex or base58, so a trigger address keeps the network's
//   normal length, every character before the suffix must belong to the network's alphabet,
//   and no checksum is checked:
//     EVM:    "0x" + 32 hex digits + "0blocked"       (42 characters)
//             "0x" + 35 hex digits + "0fail"          (42 characters)
//     Tron:   "T" + 25 base58 characters + "0blocked" (34 characters)
//             "T" + 28 base58 characters + "0fail"    (34 characters)
//     Solana: base58 characters + "0blocked"          (32 to 44 characters in total)
//             base58 characters + "0fail"             (32 to 44 characters in total)
//   Examples:
//     0x000000000000000000000000000000000blocked
//     0x000000000000000000000000000000000000fail
//     T11111111111111111111111110blocked
//     T11111111111111111111111111110fail
//     1111111111111111111111111111111111110blocked
//     1111111111111111111111111111111111111110fail
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/money/money.h"

namespace payrail::model {

enum class Network { polygon, arbitrum, optimism, base, bsc, ethereum, tron, solana };

// Exact lowercase names as listed in the enum.
std::optional<Network> parse_network(std::string_view text);
std::string_view network_name(Network network);
// polygon, arbitrum, optimism, base, bsc and ethereum.
bool is_evm_network(Network network);
bool network_supports(Network network, Asset asset);

enum class TestTrigger { none, blocked, fail };

struct Destination {
  Network network;
  std::string address;
  TestTrigger trigger;
};

// Errors are unsupported_destination with param "destination.network" (unknown network),
// "currency" (network does not carry the asset) or "destination.address" (empty or invalid).
Result<Destination> validate_destination(std::string_view network, std::string_view address,
                                         Asset asset, Mode mode);

// The form screening lists compare against: EVM addresses are case-insensitive, so lowercase;
// base58 addresses are case-sensitive, so unchanged.
std::string normalize_address_for_screening(Network network, std::string_view address);

}  // namespace payrail::model
