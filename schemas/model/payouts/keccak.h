// Keccak-256 as Ethereum uses it (EIP-55 checksums). This is the original Keccak submission with
// padding byte 0x01, not FIPS 202 SHA3-256 (padding 0x06); OpenSSL 3.0 only ships the latter.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

namespace payrail::model {

std::array<std::uint8_t, 32> keccak256(std::string_view bytes);

}  // namespace payrail::model
