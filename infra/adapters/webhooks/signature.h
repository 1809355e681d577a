// Webhook signatures (docs/api.md "Events and webhooks"):
//
//   Service-Signature: t=<unix seconds>,v1=<lowercase hex HMAC-SHA256>
//
// where the MAC is keyed with the endpoint's whole secret string ("whsec_...") and computed over
// "<t>.<raw request body>". Every attempt is signed afresh with the time it is sent.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::webhooks {

constexpr std::string_view kSignatureHeader = "Service-Signature";
constexpr std::string_view kEventIdHeader = "Service-Event-Id";
constexpr std::int64_t kSignatureToleranceSeconds = 300;  // receivers reject older timestamps

// "t=<timestamp>,v1=<hex>".
std::string signature_header(std::string_view secret, std::int64_t timestamp_s,
                             std::string_view body);

struct ParsedSignature {
  std::int64_t timestamp_s = 0;
  std::string v1_hex;
};

// Accepts the header as sent: "t=...,v1=..." (other schemes ignored); nullopt if malformed.
std::optional<ParsedSignature> parse_signature_header(std::string_view header);

// What a receiver does: parse, recompute, compare in constant time, check freshness.
bool verify_signature(std::string_view header, std::string_view secret, std::string_view body,
                      std::int64_t now_s, std::int64_t tolerance_s = kSignatureToleranceSeconds);

}  // namespace payrail::infra::webhooks
