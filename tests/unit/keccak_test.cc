#include "schemas/model/payouts/keccak.h"

#include <gtest/gtest.h>

#include <string>

namespace payrail::model {
namespace {

std::string hex(const std::array<std::uint8_t, 32>& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string text;
  for (std::uint8_t byte : digest) {
    text.push_back(kDigits[byte >> 4]);
    text.push_back(kDigits[byte & 0x0f]);
  }
  return text;
}

TEST(Keccak256, EmptyInput) {
  EXPECT_EQ(hex(keccak256("")), "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
}

TEST(Keccak256, Abc) {
  EXPECT_EQ(hex(keccak256("abc")),
            "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
}

TEST(Keccak256, QuickBrownFox) {
  EXPECT_EQ(hex(keccak256("The quick brown fox jumps over the lazy dog")),
            "4d741b6f1eb29cb2a9b9911c82f56fa8d73b04959d3d9d222895df6c0b28aa15");
}

TEST(Keccak256, IsNotSha3) {
  // SHA3-256("") differs only by its 0x06 padding; Ethereum needs the original 0x01.
  EXPECT_NE(hex(keccak256("")), "a7ffc6f8bf1ed76651c14756a061d662f580ff4de43b49fa82d80a4b80f8434a");
}

// Expected values from an independent reference implementation of the Keccak specification,
// checked against SHA3-256 with the FIPS 202 padding. Lengths straddle the 136-byte rate.
TEST(Keccak256, InputsAroundAndBeyondOneBlock) {
  EXPECT_EQ(hex(keccak256(std::string(135, 'a'))),
            "34367dc248bbd832f4e3e69dfaac2f92638bd0bbd18f2912ba4ef454919cf446");
  EXPECT_EQ(hex(keccak256(std::string(136, 'a'))),
            "a6c4d403279fe3e0af03729caada8374b5ca54d8065329a3ebcaeb4b60aa386e");
  EXPECT_EQ(hex(keccak256(std::string(137, 'a'))),
            "d869f639c7046b4929fc92a4d988a8b22c55fbadb802c0c66ebcd484f1915f39");
  EXPECT_EQ(hex(keccak256(std::string(200, 'a'))),
            "96ea54061def936c4be90b518992fdc6f12f535068a256229aca54267b4d084d");
}

}  // namespace
}  // namespace payrail::model
