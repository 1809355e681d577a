#include "schemas/model/common/text.h"

namespace payrail::model::text {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed sequence starting at `at`, or 0 if it is ill-formed. The ranges of
// the second byte are those of RFC 3629 section 4 (they exclude overlongs and surrogates).
std::size_t sequence_length(std::string_view bytes, std::size_t at) {
  const auto byte = [&](std::size_t offset) {
    return static_cast<unsigned char>(bytes[at + offset]);
  };
  const unsigned char lead = byte(0);
  if (lead < 0x80) return 1;
  std::size_t length = 0;
  unsigned char low = 0x80;
  unsigned char high = 0xBF;
  if (lead >= 0xC2 && lead <= 0xDF) {
    length = 2;
  } else if (lead >= 0xE0 && lead <= 0xEF) {
    length = 3;
    if (lead == 0xE0) low = 0xA0;
    if (lead == 0xED) high = 0x9F;  // U+D800..U+DFFF are surrogates, not characters
  } else if (lead >= 0xF0 && lead <= 0xF4) {
    length = 4;
    if (lead == 0xF0) low = 0x90;
    if (lead == 0xF4) high = 0x8F;
  } else {
    return 0;
  }
  if (at + length > bytes.size()) return 0;
  if (byte(1) < low || byte(1) > high) return 0;
  for (std::size_t i = 2; i < length; ++i) {
    if (byte(i) < 0x80 || byte(i) > 0xBF) return 0;
  }
  return length;
}

}  // namespace

bool is_valid_utf8(std::string_view bytes) {
  for (std::size_t at = 0; at < bytes.size();) {
    const auto length = sequence_length(bytes, at);
    if (length == 0) return false;
    at += length;
  }
  return true;
}

bool is_clean(std::string_view bytes) {
  return bytes.find('\0') == std::string_view::npos && is_valid_utf8(bytes);
}

std::size_t character_count(std::string_view utf8) {
  std::size_t count = 0;
  for (const char c : utf8) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++count;
  }
  return count;
}

bool has_control(std::string_view utf8) {
  for (std::size_t at = 0; at < utf8.size(); ++at) {
    const auto byte = static_cast<unsigned char>(utf8[at]);
    if (byte < 0x80 && is_control(byte)) return true;
    // Bytes 0x80..0xBF are also the tails of other characters (U+20AC is E2 82 AC).
    if (byte == 0xC2 && at + 1 < utf8.size()) {
      const auto next = static_cast<unsigned char>(utf8[at + 1]);
      if (next >= 0x80 && next <= 0x9F) return true;  // U+0080..U+009F
    }
  }
  return false;
}

Status check_clean(std::string_view bytes, std::string_view param) {
  if (bytes.find('\0') != std::string_view::npos) {
    return bad_request(sanitized(param) + " must not contain NUL characters.", sanitized(param));
  }
  if (!is_valid_utf8(bytes)) {
    return bad_request(sanitized(param) + " must be valid UTF-8.", sanitized(param));
  }
  return ok_status();
}

std::string sanitized(std::string_view bytes) {
  std::string clean;
  clean.reserve(bytes.size());
  for (std::size_t at = 0; at < bytes.size();) {
    const auto length = sequence_length(bytes, at);
    if (length == 0 || bytes[at] == '\0') {
      clean += kReplacement;
      at += 1;
      continue;
    }
    clean.append(bytes.substr(at, length));
    at += length;
  }
  return clean;
}

}  // namespace payrail::model::text
