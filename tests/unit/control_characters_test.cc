// "No control characters" means the whole Unicode Cc category: C0, DEL (U+007F) and C1
// (U+0080..U+009F), refused by the one check every such text field goes through
// (model::json::check_text, text::has_control), with bad_request naming the field. Characters
// whose UTF-8 merely contains bytes 0x80..0x9F (the euro sign is E2 82 AC) are text.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/text.h"
#include "schemas/model/organizations/kyb.h"

namespace payrail::model {
namespace {

// DEL, the first and last C1 controls, NEL (U+0085) and CSI (U+009B), from issue 38.
const std::vector<std::string> kControls = {"\x7F", "\u0080", "\u0085", "\u009B", "\u009F",
                                            "\x1F", "\x01",   "\n",     "\t"};
const std::vector<std::string> kNotControls = {"\u00A0", "\u00A9", "\u20AC",    "\u0100",
                                               "\u0160", "\u2019", "\U0001F600"};

TEST(ControlCharacters, CategoryCcIsC0DelAndC1) {
  for (char32_t code = 0; code < 0x110000; ++code) {
    const bool expected = code < 0x20 || (code >= 0x7F && code <= 0x9F);
    ASSERT_EQ(text::is_control(code), expected) << std::hex << static_cast<unsigned>(code);
  }
}

TEST(ControlCharacters, FoundAnywhereInUtf8AndOnlyThere) {
  for (const auto& control : kControls) {
    EXPECT_TRUE(text::has_control("Ana" + control + "Maria")) << control.size();
    EXPECT_TRUE(text::has_control(control)) << control.size();
  }
  for (const auto& character : kNotControls) {
    EXPECT_FALSE(text::has_control("Ana" + character + "Maria")) << character;
  }
  EXPECT_FALSE(text::has_control("Jos\u00E9 M\u00FCller \u20AC5 \u0160koda"));
}

TEST(ControlCharacters, CheckTextRefusesDelAndC1NamingTheField) {
  for (const auto& text : {std::string("Ana\x7FMaria\u0085Lopez"), std::string("ref\x7F\u009B"),
                           std::string("Ana\u0080"), std::string("\u009FAna")}) {
    const auto checked = json::check_text(text, "beneficiary.name", 140);
    ASSERT_FALSE(checked.ok());
    EXPECT_EQ(checked.error().code, ErrorCode::bad_request);
    EXPECT_EQ(checked.error().param.value_or(""), "beneficiary.name");
    EXPECT_EQ(checked.error().message, "beneficiary.name contains control characters.");
  }
  EXPECT_TRUE(json::check_text("Ana Mar\u00EDa L\u00F3pez \u20AC", "beneficiary.name", 140).ok());
}

TEST(ControlCharacters, EscapedInJsonTheyReachTheCheckAsCodePoints) {
  // "\u0085" in a JSON string is the code point U+0085 (C2 85 once parsed), not the byte 0x85.
  const auto body = json::parse_object(R"({"name":"Ana\u007fMaria\u0085Lopez"})");
  ASSERT_TRUE(body.ok());
  const auto name = json::string_member(*body, "name");
  ASSERT_TRUE(name.has_value());
  EXPECT_EQ(*name, "Ana\x7FMaria\u0085Lopez");
  EXPECT_FALSE(json::check_text(*name, "name", 140).ok());
  // A raw byte 0x85 is not UTF-8: the body is refused when it is parsed.
  const auto raw = json::parse_object("{\"name\":\"Ana\x85Lopez\"}");
  ASSERT_FALSE(raw.ok());
  EXPECT_EQ(raw.error().code, ErrorCode::bad_request);
}

TEST(ControlCharacters, KybFieldsRefuseThemByPath) {
  const KybValidation validation{[](std::string_view code) { return code == "CA"; }, "2026-11-21"};
  const auto kyb = [&](const std::string& legal_name, const std::string& owner,
                       const std::string& reference) {
    auto body = json::parse_object(
        R"({"legal_name":")" + legal_name +
        R"(","registration_no":"BC1","incorporation_country":"CA","beneficial_owners":[{"name":")" +
        owner + R"(","dob":"1980-01-01","ownership_pct":"50","country":"CA"}],)" +
        R"("documents":[{"type":"certificate_of_incorporation","reference":")" + reference +
        R"("}]})");
    EXPECT_TRUE(body.ok());
    return parse_kyb_application(*body, validation);
  };
  ASSERT_TRUE(kyb("Acme", "Ada", "doc-1").ok());
  const std::vector<std::tuple<std::string, std::string, std::string, std::string>> cases = {
      {"Acme\\u007f", "Ada", "doc-1", "legal_name"},
      {"Acme\\u0085", "Ada", "doc-1", "legal_name"},
      {"Acme", "Ada\\u009b", "doc-1", "beneficial_owners.0.name"},
      {"Acme", "Ada", "doc\\u0080-1", "documents.0.reference"},
  };
  for (const auto& [legal_name, owner, reference, param] : cases) {
    const auto parsed = kyb(legal_name, owner, reference);
    ASSERT_FALSE(parsed.ok()) << param;
    EXPECT_EQ(parsed.error().code, ErrorCode::bad_request);
    EXPECT_EQ(parsed.error().param.value_or(""), param);
  }
}

}  // namespace
}  // namespace payrail::model
