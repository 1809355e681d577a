// A KYB submission's content (POST /v1/kyb) and its validation: every field is checked and an
// error names it by its dotted path (`beneficial_owners.1.dob`). The rules and limits are the
// ones docs/api.md "Business verification (KYB)" states.
#pragma once

#include <array>
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/result.h"

namespace payrail::model {

inline constexpr std::size_t kKybLegalNameLengthMax = 200;
inline constexpr std::size_t kKybRegistrationNumberLengthMax = 100;
inline constexpr std::size_t kKybBeneficialOwnersMax = 25;
inline constexpr std::size_t kKybOwnerNameLengthMax = 200;
inline constexpr std::size_t kKybDocumentsMax = 20;
inline constexpr std::size_t kKybDocumentReferenceLengthMax = 200;
inline constexpr int kKybOwnershipScaleMax = 2;  // ownership_pct has at most 2 decimals
// Dates of birth run from this day to yesterday (UTC).
inline constexpr std::string_view kKybEarliestBirthDate = "1900-01-01";

// The document types a submission may list.
inline constexpr std::array<std::string_view, 5> kKybDocumentTypes{
    "certificate_of_incorporation", "articles_of_association", "proof_of_address",
    "shareholder_register", "government_id"};

inline constexpr std::array kKybSubmissionFields{
    json::Field{"legal_name", json::Kind::string, true},
    json::Field{"registration_no", json::Kind::string, true},
    json::Field{"incorporation_country", json::Kind::string, true},
    json::Field{"beneficial_owners", json::Kind::array, true},
    json::Field{"documents", json::Kind::array, true}};

// Names and dates of birth are personal data: sealed at rest, never logged.
struct BeneficialOwner {
  std::string name;
  std::string dob;            // YYYY-MM-DD
  std::string ownership_pct;  // canonical decimal text, 0 to 100
  std::string country;        // ISO 3166-1 alpha-2

  bool operator==(const BeneficialOwner&) const = default;
};

struct KybDocument {
  std::string type;       // one of kKybDocumentTypes
  std::string reference;  // the organization's reference to the document

  bool operator==(const KybDocument&) const = default;
};

struct KybApplication {
  std::string legal_name;
  std::string registration_no;
  std::string incorporation_country;
  std::vector<BeneficialOwner> beneficial_owners;
  std::vector<KybDocument> documents;
};

struct KybValidation {
  std::function<bool(std::string_view)> is_country;  // a known ISO 3166-1 alpha-2 code
  std::string today;                                 // YYYY-MM-DD (UTC)
};

// Checks a parsed POST /v1/kyb body; bad_request with `param` on the first problem.
Result<KybApplication> parse_kyb_application(const rapidjson::Value& body,
                                             const KybValidation& validation);

// "YYYY-MM-DD" naming a real calendar day (leap years included).
bool is_calendar_date(std::string_view text);

bool is_kyb_document_type(std::string_view type);

}  // namespace payrail::model
