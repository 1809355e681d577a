// POST /v1/kyb validation (schemas/model/organizations/kyb.h): a valid body parses to exactly its
// content, and every invalid field is refused with bad_request naming it by its dotted path.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "schemas/model/organizations/kyb.h"

namespace payrail::model {
namespace {

const std::set<std::string, std::less<>> kCountries{"CA", "US", "GB", "DE", "MX"};

KybValidation validation() {
  return {[](std::string_view code) { return kCountries.contains(code); }, "2026-11-21"};
}

std::string owner_json(const std::string& name, const std::string& dob, const std::string& pct,
                       const std::string& country) {
  return R"({"name":")" + name + R"(","dob":")" + dob + R"(","ownership_pct":)" + pct +
         R"(,"country":")" + country + R"("})";
}

std::string body(const std::string& owners, const std::string& documents,
                 const std::string& legal_name = "Acme Payments Inc.",
                 const std::string& country = "CA") {
  return R"({"legal_name":")" + legal_name + R"(","registration_no":"BC1234567",)" +
         R"("incorporation_country":")" + country + R"(","beneficial_owners":[)" + owners +
         R"(],"documents":[)" + documents + "]}";
}

const std::string kOwner = owner_json("Ada Lovelace", "1985-12-10", "\"60\"", "GB");
const std::string kDocument = R"({"type":"certificate_of_incorporation","reference":"doc-1"})";

Result<KybApplication> parse(const std::string& text) {
  auto document = json::parse_object(text);
  if (!document.ok()) return document.error();
  return parse_kyb_application(*document, validation());
}

void expect_param(const std::string& text, const std::string& param) {
  const auto parsed = parse(text);
  ASSERT_FALSE(parsed.ok()) << text;
  EXPECT_EQ(parsed.error().code, ErrorCode::bad_request) << text;
  EXPECT_EQ(parsed.error().param.value_or("(none)"), param)
      << text << ": " << parsed.error().message;
}

TEST(KybValidation, AValidSubmissionParsesToItsContent) {
  const auto parsed =
      parse(body(kOwner + "," + owner_json("Grace Hopper", "1906-12-09", "39.5", "US"),
                 kDocument + R"(,{"type":"government_id","reference":"passport scan 7"})"));
  ASSERT_TRUE(parsed.ok()) << parsed.error().message;
  EXPECT_EQ(parsed->legal_name, "Acme Payments Inc.");
  EXPECT_EQ(parsed->registration_no, "BC1234567");
  EXPECT_EQ(parsed->incorporation_country, "CA");
  const std::vector<BeneficialOwner> owners{{"Ada Lovelace", "1985-12-10", "60", "GB"},
                                            {"Grace Hopper", "1906-12-09", "39.5", "US"}};
  EXPECT_EQ(parsed->beneficial_owners, owners);
  const std::vector<KybDocument> documents{{"certificate_of_incorporation", "doc-1"},
                                           {"government_id", "passport scan 7"}};
  EXPECT_EQ(parsed->documents, documents);
}

TEST(KybValidation, OwnershipIsANumberOrDecimalStringFrom0To100WithTwoDecimals) {
  const std::vector<std::pair<std::string, std::string>> accepted{
      {"0", "0"},         {"100", "100"},       {"\"100.00\"", "100.00"}, {"25.5", "25.5"},
      {"33.33", "33.33"}, {"\"0.01\"", "0.01"}, {"12.25", "12.25"},       {"1e1", "10"}};
  for (const auto& [pct, stored] : accepted) {
    const auto parsed = parse(body(owner_json("A B", "1980-01-01", pct, "CA"), kDocument));
    ASSERT_TRUE(parsed.ok()) << pct << ": " << parsed.error().message;
    EXPECT_EQ(parsed->beneficial_owners[0].ownership_pct, stored) << pct;
  }
  for (const std::string pct :
       {"-1", "100.01", "\"100.01\"", "33.333", "\"33.333\"", "\"-5\"", "\"+5\"", "\"5e1\"", "\"\"",
        "\"abc\"", "\"01\"", "101", "1e3", "18446744073709551616"}) {
    expect_param(body(owner_json("A B", "1980-01-01", pct, "CA"), kDocument),
                 "beneficial_owners.0.ownership_pct");
  }
  for (const std::string pct : {"true", "null", "{}", "[]"}) {
    expect_param(body(owner_json("A B", "1980-01-01", pct, "CA"), kDocument),
                 "beneficial_owners.0.ownership_pct");
  }
}

TEST(KybValidation, OwnershipTotalsAtMost100) {
  const auto half = owner_json("A B", "1980-01-01", "\"50.01\"", "CA");
  expect_param(body(half + "," + half, kDocument), "beneficial_owners");
  const auto exact = owner_json("A B", "1980-01-01", "\"50\"", "CA");
  EXPECT_TRUE(parse(body(exact + "," + exact, kDocument)).ok());
}

TEST(KybValidation, DatesOfBirthAreRealPastDates) {
  for (const std::string dob :
       {"1985-13-01", "1985-02-30", "1900-02-29", "85-01-01", "1985/01/01", "1985-1-01", "",
        "2026-11-21", "2030-01-01", "1899-12-31", "1985-01-01T00:00:00Z", "abcd-ef-gh"}) {
    expect_param(body(owner_json("A B", dob, "10", "CA"), kDocument), "beneficial_owners.0.dob");
  }
  for (const std::string dob : {"2026-11-20", "2000-02-29", "1900-01-01"}) {
    EXPECT_TRUE(parse(body(owner_json("A B", dob, "10", "CA"), kDocument)).ok()) << dob;
  }
  EXPECT_TRUE(is_calendar_date("2024-02-29"));
  EXPECT_FALSE(is_calendar_date("2023-02-29"));
  EXPECT_FALSE(is_calendar_date("2024-04-31"));
}

TEST(KybValidation, EveryFieldIsNamedByItsPath) {
  const std::string second_owner_bad_country =
      kOwner + "," + owner_json("Grace Hopper", "1906-12-09", "10", "XX");
  const std::vector<std::pair<std::string, std::string>> cases{
      {body(kOwner, kDocument, ""), "legal_name"},
      {body(kOwner, kDocument, std::string(201, 'a')), "legal_name"},
      {body(kOwner, kDocument, "Acme\\u0007"), "legal_name"},
      {body(kOwner, kDocument, "Acme", "XX"), "incorporation_country"},
      {body(kOwner, kDocument, "Acme", "ca"), "incorporation_country"},
      {body("", kDocument), "beneficial_owners"},
      {body(kOwner, ""), "documents"},
      {body(second_owner_bad_country, kDocument), "beneficial_owners.1.country"},
      {body(owner_json("", "1980-01-01", "10", "CA"), kDocument), "beneficial_owners.0.name"},
      {body(owner_json(std::string(201, 'n'), "1980-01-01", "10", "CA"), kDocument),
       "beneficial_owners.0.name"},
      {body("42", kDocument), "beneficial_owners.0"},
      {body(R"({"name":"A","dob":"1980-01-01","ownership_pct":1,"country":"CA","x":1})", kDocument),
       "beneficial_owners.0.x"},
      {body(R"({"name":"A","ownership_pct":1,"country":"CA"})", kDocument),
       "beneficial_owners.0.dob"},
      {body(R"({"name":7,"dob":"1980-01-01","ownership_pct":1,"country":"CA"})", kDocument),
       "beneficial_owners.0.name"},
      {body(kOwner, R"({"type":"selfie","reference":"r"})"), "documents.0.type"},
      {body(kOwner, kDocument + R"(,{"type":"proof_of_address","reference":""})"),
       "documents.1.reference"},
      {body(kOwner, R"({"type":"proof_of_address","reference":")" + std::string(201, 'r') + "\"}"),
       "documents.0.reference"},
      {body(kOwner, R"({"type":"proof_of_address"})"), "documents.0.reference"},
      {body(kOwner, "\"doc\""), "documents.0"},
      {R"({"legal_name":"A","incorporation_country":"CA","beneficial_owners":[],"documents":[]})",
       "registration_no"},
      {R"({"legal_name":"A","registration_no":"","incorporation_country":"CA",)"
       R"("beneficial_owners":[],"documents":[]})",
       "registration_no"},
      {R"({"legal_name":"A","registration_no":"1","incorporation_country":"CA",)"
       R"("beneficial_owners":{},"documents":[]})",
       "beneficial_owners"},
      {R"({"legal_name":"A","registration_no":"1","incorporation_country":"CA",)"
       R"("beneficial_owners":[],"documents":[],"website":"x"})",
       "website"},
  };
  for (const auto& [text, param] : cases) expect_param(text, param);
}

TEST(KybValidation, CountsAreBounded) {
  std::string owners;
  for (std::size_t i = 0; i <= kKybBeneficialOwnersMax; ++i) {
    owners += (i ? "," : "") + owner_json("A B", "1980-01-01", "1", "CA");
  }
  expect_param(body(owners, kDocument), "beneficial_owners");
  std::string documents;
  for (std::size_t i = 0; i <= kKybDocumentsMax; ++i) documents += (i ? "," : "") + kDocument;
  expect_param(body(kOwner, documents), "documents");
  // At the bounds exactly: accepted.
  owners = owner_json("A B", "1980-01-01", "1", "CA");
  for (std::size_t i = 1; i < kKybBeneficialOwnersMax; ++i) {
    owners += "," + owner_json("A B", "1980-01-01", "1", "CA");
  }
  documents = kDocument;
  for (std::size_t i = 1; i < kKybDocumentsMax; ++i) documents += "," + kDocument;
  EXPECT_TRUE(parse(body(owners, documents)).ok());
}

TEST(KybValidation, EveryDocumentedTypeIsAccepted) {
  for (const auto type : kKybDocumentTypes) {
    EXPECT_TRUE(
        parse(body(kOwner, R"({"type":")" + std::string(type) + R"(","reference":"r"})")).ok())
        << type;
  }
  EXPECT_EQ(kKybDocumentTypes.size(), 5u);
}

TEST(KybValidation, MessagesNeverEchoPersonalData) {
  const auto parsed =
      parse(body(owner_json("Zelda Secretname", "2999-01-01", "10", "CA"), kDocument));
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.error().message.find("Zelda"), std::string::npos);
  EXPECT_EQ(parsed.error().message.find("2999"), std::string::npos);
}

}  // namespace
}  // namespace payrail::model
