// Crypto primitives shared by the service: CSPRNG, hashing, MACs, encodings and sealed secrets.
// Everything here is backed by OpenSSL 3; nothing hand-rolls a cipher or a comparison.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::infra::crypto {

inline constexpr std::size_t kSha256Bytes = 32;
inline constexpr std::size_t kAesKeyBytes = 32;
inline constexpr std::size_t kAesNonceBytes = 12;
inline constexpr std::size_t kAesTagBytes = 16;

// Cryptographically secure bytes. Aborts the process if the CSPRNG fails: a weak secret is
// worse than no service.
std::string random_bytes(std::size_t count);

// In ASCII order, so base62 spellings of numbers of one width sort as the numbers do (ids.h).
inline constexpr std::string_view kBase62Alphabet =
    "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

// Uniformly distributed characters from kBase62Alphabet (rejection sampling, no modulo bias).
std::string random_base62(std::size_t length);

// Raw 32-byte digest, and its lowercase hex form.
std::string sha256(std::string_view data);
std::string sha256_hex(std::string_view data);

// Raw 32-byte HMAC-SHA256, and its lowercase hex form.
std::string hmac_sha256(std::string_view key, std::string_view data);
std::string hmac_sha256_hex(std::string_view key, std::string_view data);

// Lowercase hex. Decoding accepts either case; odd lengths and non-hex characters yield nullopt.
std::string hex_encode(std::string_view data);
std::optional<std::string> hex_decode(std::string_view text);

// RFC 4648 section 5 alphabet without padding. Decoding is strict: '=' padding, characters
// outside the alphabet, impossible lengths and non-zero trailing bits yield nullopt, so every
// byte string has exactly one accepted encoding.
std::string base64url_encode(std::string_view data);
std::optional<std::string> base64url_decode(std::string_view text);

// Timing-independent comparison of equal-length inputs; different lengths return false.
bool constant_time_equals(std::string_view a, std::string_view b);

// AES-256-GCM. The sealed form is nonce(12) || ciphertext || tag(16) with a fresh random nonce
// per call. Decryption fails with internal_error and a generic message on a wrong key, any
// tampering or a short input; a key that is not 32 bytes is an error on both sides.
model::Result<std::string> aes_gcm_encrypt(std::string_view key32, std::string_view plaintext);
model::Result<std::string> aes_gcm_decrypt(std::string_view key32, std::string_view sealed);

}  // namespace payrail::infra::crypto
