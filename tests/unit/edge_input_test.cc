// Strings as they enter the service (issue 12): well-formed UTF-8 without NUL everywhere, lengths
// in characters, the JSON body parser's refusals, the envelope never echoing invalid bytes, the
// timestamp range, and the webhook URL scheme stored in lower case.
#include <gtest/gtest.h>

#include <string>

#include "api/http/message.h"
#include "infra/adapters/webhooks/ssrf.h"
#include "infra/plumbing/time/clock.h"
#include "schemas/model/common/json.h"
#include "schemas/model/common/text.h"

namespace payrail {
namespace {

using model::text::character_count;
using model::text::is_clean;
using model::text::is_valid_utf8;
using model::text::sanitized;

TEST(Text, AcceptsWellFormedUtf8) {
  for (const std::string text : {"", "plain", "\xC3\xA9", "\xE2\x82\xAC", "\xF0\x9F\x92\xB0",
                                 "\xED\x9F\xBF", "\xEE\x80\x80", "\xF4\x8F\xBF\xBF"}) {
    EXPECT_TRUE(is_valid_utf8(text)) << text;
  }
}

TEST(Text, RefusesIllFormedUtf8) {
  for (const std::string text : {"\xFF", "\xC0\xAF", "\xC1\xBF", "\xE0\x80\xAF", "\xED\xA0\x80",
                                 "\xED\xB0\x80", "\xF0\x80\x80\xAF", "\xF4\x90\x80\x80",
                                 "\xF5\x80\x80\x80", "\xC3", "\xE2\x82", "\x80", "ok\xC3\x28"}) {
    EXPECT_FALSE(is_valid_utf8(text)) << sanitized(text);
  }
}

TEST(Text, NulIsNeverClean) {
  EXPECT_TRUE(is_valid_utf8(std::string("a\0b", 3)));
  EXPECT_FALSE(is_clean(std::string("a\0b", 3)));
  EXPECT_TRUE(is_clean("payouts:read"));
}

TEST(Text, CountsCharactersNotBytes) {
  EXPECT_EQ(character_count(""), 0u);
  EXPECT_EQ(character_count("abc"), 3u);
  EXPECT_EQ(character_count("\xC3\xA9\xC3\xA9"), 2u);
  EXPECT_EQ(character_count("\xF0\x9F\x92\xB0x"), 2u);
}

TEST(Text, SanitizedIsAlwaysValid) {
  const std::string dirty = std::string("po_\xFF\xED\xB0\x80", 7) + std::string(1, '\0') + "z";
  const auto clean = sanitized(dirty);
  EXPECT_TRUE(is_clean(clean));
  EXPECT_EQ(clean.substr(0, 3), "po_");
  EXPECT_EQ(clean.back(), 'z');
  EXPECT_EQ(sanitized("caf\xC3\xA9"), "caf\xC3\xA9");
}

TEST(Text, CheckCleanNamesTheParam) {
  const auto status = model::text::check_clean("\xFF", "starting_after");
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().code, model::ErrorCode::bad_request);
  EXPECT_EQ(status.error().param, "starting_after");
}

std::string param_of(std::string_view body) {
  auto parsed = model::json::parse_object(body);
  if (parsed.ok()) return "<accepted>";
  EXPECT_EQ(parsed.error().code, model::ErrorCode::bad_request);
  return parsed.error().param.value_or("");
}

TEST(JsonBody, LoneSurrogatesAreRefusedWithTheirPath) {
  EXPECT_EQ(param_of(R"({"metadata":{"note":"\udc00"}})"), "metadata.note");
  // Each byte of the ill-formed sequence ED B0 80 becomes one U+FFFD (Unicode's practice).
  EXPECT_EQ(param_of(R"({"metadata":{"\udc00":"x"}})"),
            "metadata.\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(param_of(R"({"legal_name":"a\udc00b"})"), "legal_name");
  EXPECT_EQ(param_of(R"({"scopes":["payouts:read","\udfff"]})"), "scopes.1");
  // A paired surrogate is a real character.
  EXPECT_EQ(param_of(R"({"name":"\ud83d\udcb0"})"), "<accepted>");
}

TEST(JsonBody, EscapedNulIsRefused) {
  EXPECT_EQ(param_of(R"({"scopes":["payouts:read\u0000evil"]})"), "scopes.0");
  EXPECT_EQ(param_of(R"({"events":["payout.completed\u0000x"]})"), "events.0");
  EXPECT_EQ(param_of(R"({"a\u0000b":"x"})"), std::string("a\xEF\xBF\xBD") + "b");
}

TEST(JsonBody, RawNulAndTrailingBytesAreRefused) {
  for (const std::string& body :
       {std::string("{\"mode\":\"test\"}\0garbage", 23), std::string("{\"mode\":\"te\0st\"}", 16),
        std::string("{\"mode\":\"test\"}\0", 16), std::string("{\"mode\":\"test\"} {}"),
        std::string("{\"mode\":\"test\"}x")}) {
    EXPECT_FALSE(model::json::parse_object(body).ok());
  }
  EXPECT_TRUE(model::json::parse_object("{\"mode\":\"test\"} \r\n\t").ok());
}

TEST(JsonBody, NumbersBeyondADoubleAreRefused) {
  // Found by tests/fuzz: RapidJSON read this as infinity and its writer printed {"d":}.
  EXPECT_EQ(param_of(R"({"a":[{"d":)" + std::string(110, '1') + R"(.5e221}]})"), "a.0.d");
  EXPECT_EQ(param_of(R"({"d":-1e400})"), "");  // RapidJSON refuses this one itself
  EXPECT_EQ(param_of(R"({"d":1e300})"), "<accepted>");
}

TEST(JsonBody, MetadataLengthsAreCharacters) {
  std::string key;
  for (int i = 0; i < 40; ++i) key += "\xC3\xA9";
  std::string value;
  for (int i = 0; i < 500; ++i) value += "\xC3\xA9";
  auto fits = model::json::parse_object(R"({"metadata":{")" + key + R"(":")" + value + R"("}})");
  ASSERT_TRUE(fits.ok());
  EXPECT_TRUE(model::json::check_metadata((*fits)["metadata"]).ok());
  auto too_long =
      model::json::parse_object(R"({"metadata":{")" + key + R"(":")" + value + R"(x"}})");
  ASSERT_TRUE(too_long.ok());
  EXPECT_FALSE(model::json::check_metadata((*too_long)["metadata"]).ok());
  auto long_key = model::json::parse_object(R"({"metadata":{")" + key + R"(e":"v"}})");
  ASSERT_TRUE(long_key.ok());
  EXPECT_FALSE(model::json::check_metadata((*long_key)["metadata"]).ok());
}

TEST(ErrorEnvelope, IsValidUtf8WhateverTheErrorQuotes) {
  auto error = model::bad_request("No such endpoint: GET /v1/payouts/po_\xFF\xFE", "id\xC0");
  error.extra["payout_id"] = "po_\xED\xB0\x80";
  const auto response = api::error_response(error, "req_1");
  EXPECT_TRUE(is_clean(response.body)) << response.body;
  auto parsed = model::json::parse_object(response.body);
  ASSERT_TRUE(parsed.ok());
}

TEST(Timestamps, OutsideTheSaneRangeAreRefused) {
  EXPECT_TRUE(infra::time::parse_utc("1970-01-01T00:00:00Z"));
  EXPECT_TRUE(infra::time::parse_utc("2026-11-21T00:00:00.123Z"));
  // Past 2262, where a 64-bit count of nanoseconds ends (found by tests/fuzz: signed overflow).
  using namespace std::chrono;
  EXPECT_EQ(infra::time::parse_utc("5312-01-01T00:00:00Z"), sys_days(year(5312) / 1 / 1));
  EXPECT_TRUE(infra::time::parse_utc("9999-12-31T23:59:59Z"));
  for (const char* text : {"0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
                           "2026-02-30T00:00:00Z", "2026-13-01T00:00:00Z"}) {
    EXPECT_FALSE(infra::time::parse_utc(text)) << text;
  }
}

// The operator's --to-time picks Kafka messages, stamped in milliseconds: a time cut to its
// second would replay up to 999 ms of messages the operator asked to skip.
TEST(Timestamps, ToTheMillisecondKeepTheFraction) {
  using namespace std::chrono;
  const sys_time<milliseconds> second = sys_days(year(2026) / 11 / 21) + hours(10);
  EXPECT_EQ(infra::time::parse_utc_ms("2026-11-21T10:00:00Z"), second);
  EXPECT_EQ(infra::time::parse_utc_ms("2026-11-21T10:00:00.4Z"), second + milliseconds(400));
  EXPECT_EQ(infra::time::parse_utc_ms("2026-11-21T10:00:00.42Z"), second + milliseconds(420));
  EXPECT_EQ(infra::time::parse_utc_ms("2026-11-21T10:00:00.424Z"), second + milliseconds(424));
  EXPECT_EQ(infra::time::parse_utc_ms("2026-11-21T10:00:00.4249999Z"), second + milliseconds(424));
  EXPECT_EQ(
      infra::time::parse_utc_ms("9999-12-31T23:59:59.999Z"),
      sys_days(year(9999) / 12 / 31) + hours(23) + minutes(59) + seconds(59) + milliseconds(999));
  for (const char* text : {"2026-11-21T10:00:00.Z", "2026-11-21T10:00:00.4x2Z",
                           "2026-11-21T10:00:00.424", "1969-12-31T23:59:59.999Z"}) {
    EXPECT_FALSE(infra::time::parse_utc_ms(text)) << text;
  }
}

TEST(WebhookUrl, SchemeIsStoredInLowerCase) {
  for (const char* text : {"HTTPS://hooks.example.com/x", "Https://hooks.example.com/x",
                           "https://hooks.example.com/x"}) {
    auto url = infra::webhooks::parse_webhook_url(text);
    ASSERT_TRUE(url.ok()) << text;
    EXPECT_EQ(url->text, "https://hooks.example.com/x");
  }
  EXPECT_FALSE(infra::webhooks::parse_webhook_url("HTTP://hooks.example.com/x").ok());
}

}  // namespace
}  // namespace payrail
