#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra {

// Resource and message ids: the contract's prefix (org_, po_, key_, whe_, evt_ ...) and 24 base62
// characters: 8 that spell the creation time in milliseconds since the Unix epoch (fixed width,
// good for 6,900 years), then 16 from the CSPRNG (~95 bits), so ids are unguessable and never
// collide in practice. Time comes first so that ids sort by creation time (byte order: the
// alphabet is in ASCII order). Every index keyed by an id (the primary keys, and the resource ids
// of the transition logs, events and journal) then takes a new row near its right edge, on pages
// already in memory. With 24 random characters each insert landed on a random leaf page of every
// such index: once the tables outgrew shared_buffers, most of them were a read from the page
// cache and the eviction of another page (docs/design.md, "Time-ordered ids").
inline constexpr std::size_t kIdTimeCharacters = 8;
inline constexpr std::size_t kIdRandomCharacters = 16;

// The fixed-width base62 spelling of `value`, most significant character first.
inline std::string base62_fixed_width(std::uint64_t value, std::size_t width) {
  constexpr auto kAlphabet = crypto::kBase62Alphabet;
  std::string output(width, kAlphabet[0]);
  for (std::size_t position = width; position > 0 && value > 0; --position) {
    output[position - 1] = kAlphabet[value % kAlphabet.size()];
    value /= kAlphabet.size();
  }
  return output;
}

inline std::string new_id(std::string_view prefix, std::chrono::system_clock::time_point now) {
  const auto since_epoch_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
  return std::string(prefix) +
         base62_fixed_width(static_cast<std::uint64_t>(since_epoch_ms), kIdTimeCharacters) +
         crypto::random_base62(kIdRandomCharacters);
}

inline std::string new_id(std::string_view prefix) {
  return new_id(prefix, std::chrono::system_clock::now());
}

}  // namespace payrail::infra
