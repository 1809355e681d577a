#include "infra/plumbing/crypto/crypto.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/rand.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdlib>
#include <memory>

#include "schemas/model/common/hex.h"

namespace payrail::infra::crypto {
namespace {

constexpr std::string_view kBase64UrlAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
constexpr std::string_view kHexDigits = "0123456789abcdef";
// OpenSSL's update functions take int lengths; larger inputs are fed in slices of this size.
constexpr std::size_t kMaxChunkBytes = 1U << 30;
constexpr std::size_t kHmacBlockBytes = 64;
// EVP_CIPHER_CTX_ctrl takes int arguments.
constexpr int kNonceLength = static_cast<int>(kAesNonceBytes);
constexpr int kTagLength = static_cast<int>(kAesTagBytes);

struct CipherContextDeleter {
  void operator()(EVP_CIPHER_CTX* context) const { EVP_CIPHER_CTX_free(context); }
};
using CipherContext = std::unique_ptr<EVP_CIPHER_CTX, CipherContextDeleter>;

const unsigned char* bytes(std::string_view data) {
  return reinterpret_cast<const unsigned char*>(data.data());
}

unsigned char* bytes(std::string& data) {
  return reinterpret_cast<unsigned char*>(data.data());
}

// Hashing and MAC failures mean a broken OpenSSL installation; continuing would hand callers an
// empty digest that compares equal to other empty digests.
[[noreturn]] void crypto_failure() {
  std::abort();
}

model::Error sealing_error() {
  return model::Error::make(model::ErrorCode::internal_error, "encryption failed");
}

model::Error opening_error() {
  return model::Error::make(model::ErrorCode::internal_error, "decryption failed");
}

int base64url_value(char character) {
  if (character >= 'A' && character <= 'Z') return character - 'A';
  if (character >= 'a' && character <= 'z') return character - 'a' + 26;
  if (character >= '0' && character <= '9') return character - '0' + 52;
  if (character == '-') return 62;
  if (character == '_') return 63;
  return -1;
}

// Runs an EVP update function over input of any size, writing to output (which must be at least
// input.size() bytes, true for GCM). Returns bytes written or nullopt on failure.
template <class Update>
std::optional<std::size_t> update_in_chunks(EVP_CIPHER_CTX* context, Update update,
                                            std::string_view input, unsigned char* output) {
  std::size_t written = 0;
  while (!input.empty()) {
    const std::size_t chunk = std::min(input.size(), kMaxChunkBytes);
    int produced = 0;
    if (update(context, output + written, &produced, bytes(input), static_cast<int>(chunk)) != 1) {
      return std::nullopt;
    }
    written += static_cast<std::size_t>(produced);
    input.remove_prefix(chunk);
  }
  return written;
}

}  // namespace

std::string random_bytes(std::size_t count) {
  std::string output(count, '\0');
  std::size_t filled = 0;
  while (filled < count) {
    const std::size_t chunk = std::min(count - filled, kMaxChunkBytes);
    if (RAND_bytes(bytes(output) + filled, static_cast<int>(chunk)) != 1) std::abort();
    filled += chunk;
  }
  return output;
}

std::string random_base62(std::size_t length) {
  // 248 = 4 * 62: bytes at or above it would favour the first eight characters, so drop them.
  constexpr unsigned kAcceptBelow = 248;
  std::string output;
  output.reserve(length);
  while (output.size() < length) {
    // Each byte is accepted with probability 248/256; over-draw slightly to avoid extra rounds.
    const std::string pool = random_bytes(length - output.size() + 8);
    for (const char raw : pool) {
      const unsigned value = static_cast<unsigned char>(raw);
      if (value >= kAcceptBelow) continue;
      output.push_back(kBase62Alphabet[value % kBase62Alphabet.size()]);
      if (output.size() == length) break;
    }
  }
  return output;
}

std::string sha256(std::string_view data) {
  std::string digest(kSha256Bytes, '\0');
  unsigned int digest_length = 0;
  if (EVP_Digest(data.data(), data.size(), bytes(digest), &digest_length, EVP_sha256(), nullptr) !=
          1 ||
      digest_length != kSha256Bytes) {
    crypto_failure();
  }
  return digest;
}

std::string sha256_hex(std::string_view data) {
  return hex_encode(sha256(data));
}

std::string hmac_sha256(std::string_view key, std::string_view data) {
  // HMAC hashes keys longer than its block size anyway, so doing it here first is equivalent
  // and keeps oversized keys within HMAC()'s int length.
  std::string hashed_key;
  if (key.size() > kHmacBlockBytes) {
    hashed_key = sha256(key);
    key = hashed_key;
  }
  static constexpr unsigned char kEmpty = 0;
  const unsigned char* key_bytes = key.empty() ? &kEmpty : bytes(key);
  std::string mac(kSha256Bytes, '\0');
  unsigned int mac_length = 0;
  if (HMAC(EVP_sha256(), key_bytes, static_cast<int>(key.size()), bytes(data), data.size(),
           bytes(mac), &mac_length) == nullptr ||
      mac_length != kSha256Bytes) {
    crypto_failure();
  }
  return mac;
}

std::string hmac_sha256_hex(std::string_view key, std::string_view data) {
  return hex_encode(hmac_sha256(key, data));
}

std::string hex_encode(std::string_view data) {
  std::string output;
  output.reserve(data.size() * 2);
  for (const char raw : data) {
    const unsigned value = static_cast<unsigned char>(raw);
    output.push_back(kHexDigits[value >> 4]);
    output.push_back(kHexDigits[value & 0x0F]);
  }
  return output;
}

std::optional<std::string> hex_decode(std::string_view text) {
  if (text.size() % 2 != 0) return std::nullopt;
  std::string output;
  output.reserve(text.size() / 2);
  for (std::size_t index = 0; index < text.size(); index += 2) {
    const int high = model::hex_digit_value(text[index]);
    const int low = model::hex_digit_value(text[index + 1]);
    if (high < 0 || low < 0) return std::nullopt;
    output.push_back(static_cast<char>((high << 4) | low));
  }
  return output;
}

std::string base64url_encode(std::string_view data) {
  std::string output;
  output.reserve((data.size() * 4 + 2) / 3);
  std::size_t index = 0;
  for (; index + 3 <= data.size(); index += 3) {
    const std::uint32_t group =
        (static_cast<std::uint32_t>(static_cast<unsigned char>(data[index])) << 16) |
        (static_cast<unsigned char>(data[index + 1]) << 8) |
        static_cast<unsigned char>(data[index + 2]);
    output.push_back(kBase64UrlAlphabet[(group >> 18) & 0x3F]);
    output.push_back(kBase64UrlAlphabet[(group >> 12) & 0x3F]);
    output.push_back(kBase64UrlAlphabet[(group >> 6) & 0x3F]);
    output.push_back(kBase64UrlAlphabet[group & 0x3F]);
  }
  const std::size_t remaining = data.size() - index;
  if (remaining == 0) return output;
  std::uint32_t group = static_cast<std::uint32_t>(static_cast<unsigned char>(data[index])) << 16;
  if (remaining == 2) group |= static_cast<unsigned char>(data[index + 1]) << 8;
  output.push_back(kBase64UrlAlphabet[(group >> 18) & 0x3F]);
  output.push_back(kBase64UrlAlphabet[(group >> 12) & 0x3F]);
  if (remaining == 2) output.push_back(kBase64UrlAlphabet[(group >> 6) & 0x3F]);
  return output;
}

std::optional<std::string> base64url_decode(std::string_view text) {
  // A final group of one character cannot carry a whole byte.
  if (text.size() % 4 == 1) return std::nullopt;
  std::string output;
  output.reserve(text.size() * 3 / 4);
  std::uint32_t accumulator = 0;
  int bits = 0;
  for (const char character : text) {
    const int value = base64url_value(character);
    if (value < 0) return std::nullopt;
    accumulator = (accumulator << 6) | static_cast<std::uint32_t>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      output.push_back(static_cast<char>((accumulator >> bits) & 0xFF));
    }
  }
  // Leftover bits must be zero; otherwise several encodings would map to the same bytes.
  if ((accumulator & ((1U << bits) - 1)) != 0) return std::nullopt;
  return output;
}

bool constant_time_equals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  if (a.empty()) return true;
  return CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

model::Result<std::string> aes_gcm_encrypt(std::string_view key32, std::string_view plaintext) {
  if (key32.size() != kAesKeyBytes) {
    return model::Error::make(model::ErrorCode::internal_error, "encryption key must be 32 bytes");
  }
  const std::string nonce = random_bytes(kAesNonceBytes);
  std::string sealed(kAesNonceBytes + plaintext.size() + kAesTagBytes, '\0');
  std::copy(nonce.begin(), nonce.end(), sealed.begin());
  unsigned char* ciphertext = bytes(sealed) + kAesNonceBytes;

  CipherContext context(EVP_CIPHER_CTX_new());
  if (!context) return sealing_error();
  if (EVP_EncryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceLength, nullptr) != 1 ||
      EVP_EncryptInit_ex(context.get(), nullptr, nullptr, bytes(key32), bytes(nonce)) != 1) {
    return sealing_error();
  }
  const auto written = update_in_chunks(context.get(), EVP_EncryptUpdate, plaintext, ciphertext);
  if (!written || *written != plaintext.size()) return sealing_error();
  int final_length = 0;
  if (EVP_EncryptFinal_ex(context.get(), ciphertext + *written, &final_length) != 1 ||
      final_length != 0) {
    return sealing_error();
  }
  if (EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_GET_TAG, kTagLength,
                          ciphertext + plaintext.size()) != 1) {
    return sealing_error();
  }
  return sealed;
}

model::Result<std::string> aes_gcm_decrypt(std::string_view key32, std::string_view sealed) {
  if (key32.size() != kAesKeyBytes) {
    return model::Error::make(model::ErrorCode::internal_error, "decryption key must be 32 bytes");
  }
  if (sealed.size() < kAesNonceBytes + kAesTagBytes) return opening_error();
  const std::string_view nonce = sealed.substr(0, kAesNonceBytes);
  const std::string_view ciphertext =
      sealed.substr(kAesNonceBytes, sealed.size() - kAesNonceBytes - kAesTagBytes);
  // GCM_SET_TAG wants a mutable buffer.
  std::string tag(sealed.substr(sealed.size() - kAesTagBytes));

  CipherContext context(EVP_CIPHER_CTX_new());
  if (!context) return opening_error();
  if (EVP_DecryptInit_ex(context.get(), EVP_aes_256_gcm(), nullptr, nullptr, nullptr) != 1 ||
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_IVLEN, kNonceLength, nullptr) != 1 ||
      EVP_DecryptInit_ex(context.get(), nullptr, nullptr, bytes(key32), bytes(nonce)) != 1) {
    return opening_error();
  }
  std::string plaintext(ciphertext.size(), '\0');
  const auto written =
      update_in_chunks(context.get(), EVP_DecryptUpdate, ciphertext, bytes(plaintext));
  int final_length = 0;
  const bool authentic =
      written && *written == ciphertext.size() &&
      EVP_CIPHER_CTX_ctrl(context.get(), EVP_CTRL_GCM_SET_TAG, kTagLength, tag.data()) == 1 &&
      EVP_DecryptFinal_ex(context.get(), bytes(plaintext) + *written, &final_length) == 1 &&
      final_length == 0;
  if (!authentic) {
    // Unauthenticated plaintext must not linger in freed memory.
    OPENSSL_cleanse(plaintext.data(), plaintext.size());
    return opening_error();
  }
  return plaintext;
}

}  // namespace payrail::infra::crypto
