// The Solidity ABI as the payouts need it: ERC-20 call data, constructor arguments, 256-bit
// words, and token amounts between decimal text and base units (exact, no floating point).
#pragma once

#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "infra/adapters/evm/bytes.h"
#include "infra/adapters/evm/uint256.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::evm::abi {

// The first four bytes of keccak256 of a function's signature ("transfer(address,uint256)").
Bytes selector(std::string_view signature);

// transfer(address,uint256): selector a9059cbb, the recipient, the amount in base units.
Bytes transfer_call(const Address& recipient, const U256& amount);
// balanceOf(address): selector 70a08231 and the holder.
Bytes balance_of_call(const Address& holder);

// A static value (uint<N>, address, bool: one word) or a dynamic one (string, bytes).
struct Word {
  U256 value;
};
struct DynamicBytes {
  Bytes bytes;
};
using Argument = std::variant<Word, DynamicBytes>;
inline Argument word(const U256& value) {
  return Word{value};
}
inline Argument word(const Address& address) {
  return Word{*U256::from_big_endian(address.raw())};
}
inline Argument dynamic(std::string_view bytes) {
  return DynamicBytes{Bytes(bytes)};
}

// The ABI encoding of a tuple of arguments (heads, then the dynamic values' tails): what follows
// a selector in call data, or a contract's creation code as its constructor arguments.
Bytes encode(const std::vector<Argument>& arguments);

// One word returned by a call (uint256, such as balanceOf's answer): exactly 32 bytes.
model::Result<U256> decode_word(std::string_view returned);

// A decimal amount (the API's text, e.g. "12.5") in the token's base units: amount * 10^decimals,
// exactly. An amount with more fractional digits than the token carries (a non-zero digit past
// `decimals`) is refused, as is one that does not fit 256 bits. `decimals` is the token's own
// (configuration, never assumed: USDC has 6 on most networks and 18 on bsc), 0 to 77.
model::Result<U256> to_base_units(std::string_view amount, int decimals);
// Base units back to decimal text with exactly `decimals` fractional digits ("12.500000").
std::string from_base_units(const U256& units, int decimals);

}  // namespace payrail::infra::evm::abi
