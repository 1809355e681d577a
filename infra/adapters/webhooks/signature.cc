#include "infra/adapters/webhooks/signature.h"

#include <charconv>

#include "infra/plumbing/crypto/crypto.h"

namespace payrail::infra::webhooks {
namespace {

constexpr std::size_t kHeaderPartsMax = 8;  // bounds the parse of a hostile header

std::string signed_content(std::int64_t timestamp_s, std::string_view body) {
  std::string content = std::to_string(timestamp_s);
  content += '.';
  content.append(body);
  return content;
}

}  // namespace

std::string signature_header(std::string_view secret, std::int64_t timestamp_s,
                             std::string_view body) {
  return "t=" + std::to_string(timestamp_s) +
         ",v1=" + crypto::hmac_sha256_hex(secret, signed_content(timestamp_s, body));
}

std::optional<ParsedSignature> parse_signature_header(std::string_view header) {
  std::optional<std::int64_t> timestamp_s;
  std::optional<std::string> v1;
  for (std::size_t parts = 0; !header.empty() && parts < kHeaderPartsMax; ++parts) {
    const auto comma = header.find(',');
    const auto part = header.substr(0, comma);
    header = comma == std::string_view::npos ? std::string_view{} : header.substr(comma + 1);
    if (part.starts_with("t=")) {
      std::int64_t value = 0;
      const auto digits = part.substr(2);
      const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
      if (ec != std::errc() || end != digits.data() + digits.size() || value < 0) {
        return std::nullopt;
      }
      timestamp_s = value;
    } else if (part.starts_with("v1=")) {
      v1 = std::string(part.substr(3));
    }
  }
  if (!timestamp_s || !v1 || !header.empty()) return std::nullopt;
  return ParsedSignature{*timestamp_s, *v1};
}

bool verify_signature(std::string_view header, std::string_view secret, std::string_view body,
                      std::int64_t now_s, std::int64_t tolerance_s) {
  const auto parsed = parse_signature_header(header);
  if (!parsed) return false;
  const auto expected = crypto::hmac_sha256_hex(secret, signed_content(parsed->timestamp_s, body));
  if (!crypto::constant_time_equals(expected, parsed->v1_hex)) return false;
  const auto age_s = now_s - parsed->timestamp_s;
  return age_s <= tolerance_s && age_s >= -tolerance_s;
}

}  // namespace payrail::infra::webhooks
