#include "schemas/model/payouts/keccak.h"

#include <cstddef>

namespace payrail::model {
namespace {

using State = std::array<std::uint64_t, 25>;

constexpr std::size_t kRateBytes = 136;  // 1600-bit state minus 2 * 256-bit capacity.
constexpr int kRounds = 24;

constexpr std::array<std::uint64_t, kRounds> kRoundConstants{
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
};

// Rotation offsets and lane order of the combined rho and pi steps, starting from lane 1.
constexpr std::array<int, 24> kRotations{1,  3,  6,  10, 15, 21, 28, 36, 45, 55, 2,  14,
                                         27, 41, 56, 8,  25, 43, 62, 18, 39, 61, 20, 44};
constexpr std::array<int, 24> kPiLanes{10, 7,  11, 17, 18, 3, 5,  16, 8,  21, 24, 4,
                                       15, 23, 19, 13, 12, 2, 20, 14, 22, 9,  6,  1};

std::uint64_t rotate_left(std::uint64_t value, int bits) {
  return (value << bits) | (value >> (64 - bits));
}

void theta(State& state) {
  std::array<std::uint64_t, 5> parity{};
  for (int x = 0; x < 5; ++x) {
    parity[x] = state[x] ^ state[x + 5] ^ state[x + 10] ^ state[x + 15] ^ state[x + 20];
  }
  for (int x = 0; x < 5; ++x) {
    std::uint64_t mix = parity[(x + 4) % 5] ^ rotate_left(parity[(x + 1) % 5], 1);
    for (int y = 0; y < 25; y += 5) state[y + x] ^= mix;
  }
}

void rho_pi(State& state) {
  std::uint64_t carried = state[1];
  for (int i = 0; i < 24; ++i) {
    int lane = kPiLanes[i];
    std::uint64_t next = state[lane];
    state[lane] = rotate_left(carried, kRotations[i]);
    carried = next;
  }
}

void chi(State& state) {
  for (int y = 0; y < 25; y += 5) {
    std::array<std::uint64_t, 5> row{};
    for (int x = 0; x < 5; ++x) row[x] = state[y + x];
    for (int x = 0; x < 5; ++x) state[y + x] = row[x] ^ (~row[(x + 1) % 5] & row[(x + 2) % 5]);
  }
}

void keccak_f1600(State& state) {
  for (int round = 0; round < kRounds; ++round) {
    theta(state);
    rho_pi(state);
    chi(state);
    state[0] ^= kRoundConstants[round];  // iota
  }
}

// Lanes are little-endian: byte i of the rate lands in lane i / 8 at bit 8 * (i % 8).
void absorb_byte(State& state, std::size_t index, std::uint8_t byte) {
  state[index / 8] ^= static_cast<std::uint64_t>(byte) << (8 * (index % 8));
}

}  // namespace

std::array<std::uint8_t, 32> keccak256(std::string_view bytes) {
  State state{};
  std::size_t offset = 0;
  for (char c : bytes) {
    absorb_byte(state, offset++, static_cast<std::uint8_t>(c));
    if (offset == kRateBytes) {
      keccak_f1600(state);
      offset = 0;
    }
  }
  // Original Keccak multi-rate padding: 0x01 after the message, 0x80 in the last rate byte.
  absorb_byte(state, offset, 0x01);
  absorb_byte(state, kRateBytes - 1, 0x80);
  keccak_f1600(state);
  std::array<std::uint8_t, 32> digest{};
  for (std::size_t i = 0; i < digest.size(); ++i) {
    digest[i] = static_cast<std::uint8_t>(state[i / 8] >> (8 * (i % 8)));
  }
  return digest;
}

}  // namespace payrail::model
