// Base58 as Bitcoin, Tron and Solana write it: alphabet without 0, O, I and l.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::model {

// Longest text base58_decode accepts; bounds the quadratic decoding work on untrusted input.
inline constexpr std::size_t kMaxBase58Chars = 128;

// The decoded bytes, or nullopt for a character outside the alphabet or text over 128 chars.
// Each leading '1' is one leading zero byte; the empty text decodes to no bytes.
std::optional<std::string> base58_decode(std::string_view text);

// True when `c` is in the Bitcoin base58 alphabet.
bool is_base58_char(char c);

}  // namespace payrail::model
