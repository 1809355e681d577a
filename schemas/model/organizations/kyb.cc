#include "schemas/model/organizations/kyb.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>

#include "schemas/model/money/money.h"

namespace payrail::model {
namespace {

using json::Field;
using json::Kind;

constexpr std::array kOwnerFields{
    Field{"name", Kind::string, true}, Field{"dob", Kind::string, true},
    Field{"ownership_pct", Kind::any, true}, Field{"country", Kind::string, true}};
constexpr std::array kDocumentFields{Field{"type", Kind::string, true},
                                     Field{"reference", Kind::string, true}};
constexpr Decimal kHundredPercent{100, 0};

std::string element_path(std::string_view array, std::size_t index) {
  return json::child_path(array, std::to_string(index));
}

std::string string_of(const rapidjson::Value& object, const char* name) {
  return std::string(*json::string_member(object, name));
}

Status check_country(const KybValidation& validation, std::string_view code, std::string param) {
  if (validation.is_country(code)) return ok_status();
  return bad_request(param + " must be an ISO 3166-1 alpha-2 code such as CA.", param);
}

Status check_birth_date(const KybValidation& validation, std::string_view dob, std::string param) {
  if (!is_calendar_date(dob)) {
    return bad_request(param + " must be a date written YYYY-MM-DD.", param);
  }
  if (dob < kKybEarliestBirthDate || dob >= std::string_view(validation.today)) {
    return bad_request(
        param + " must be a date in the past, from " + std::string(kKybEarliestBirthDate) + ".",
        param);
  }
  return ok_status();
}

// A JSON number is accepted when it is exactly a decimal of at most two places: the shortest such
// text that reads back as the same double is that decimal (RapidJSON and strtod both round
// correctly for values this short).
std::optional<std::string> exact_decimal_text(double value) {
  if (value == 0) return "0";
  char text[32];
  for (int scale = 0; scale <= kKybOwnershipScaleMax; ++scale) {
    std::snprintf(text, sizeof text, "%.*f", scale, value);
    if (std::strtod(text, nullptr) == value) return std::string(text);
  }
  return std::nullopt;
}

Result<Decimal> parse_ownership(const rapidjson::Value& value, const std::string& param) {
  const auto range_error = [&] {
    return bad_request(param + " must be from 0 to 100 with at most 2 decimal places.", param);
  };
  std::optional<std::string> text;
  if (value.IsString()) {
    text = std::string(value.GetString(), value.GetStringLength());
  } else if (value.IsNumber()) {
    if (value.GetDouble() < 0 || value.GetDouble() > 100) return range_error();
    text = value.IsUint64() ? std::to_string(value.GetUint64())
                            : exact_decimal_text(value.GetDouble());
    if (!text) return range_error();
  } else {
    return bad_request(param + " must be a number or a decimal string.", param);
  }
  const auto decimal = parse_decimal(*text);
  if (!decimal || decimal->scale > kKybOwnershipScaleMax ||
      compare(*decimal, kHundredPercent) > 0) {
    return range_error();
  }
  return *decimal;
}

Result<BeneficialOwner> parse_owner(const rapidjson::Value& owner, const std::string& path,
                                    const KybValidation& validation, Decimal& total) {
  if (!owner.IsObject()) return bad_request(path + " must be an object.", path);
  if (auto status = json::check_object(owner, kOwnerFields, path); !status.ok()) {
    return status.error();
  }
  BeneficialOwner parsed{string_of(owner, "name"), string_of(owner, "dob"), "",
                         string_of(owner, "country")};
  const auto name_param = json::child_path(path, "name");
  if (auto status = json::check_text(parsed.name, name_param, kKybOwnerNameLengthMax);
      !status.ok()) {
    return status.error();
  }
  if (auto status = check_birth_date(validation, parsed.dob, json::child_path(path, "dob"));
      !status.ok()) {
    return status.error();
  }
  auto ownership = parse_ownership(*json::member(owner, "ownership_pct"),
                                   json::child_path(path, "ownership_pct"));
  if (!ownership.ok()) return ownership.error();
  parsed.ownership_pct = format_decimal(*ownership);
  total = add(total, *ownership);
  if (auto status = check_country(validation, parsed.country, json::child_path(path, "country"));
      !status.ok()) {
    return status.error();
  }
  return parsed;
}

Result<std::vector<BeneficialOwner>> parse_owners(const rapidjson::Value& owners,
                                                  const KybValidation& validation) {
  constexpr std::string_view kParam = "beneficial_owners";
  if (owners.Empty() || owners.Size() > kKybBeneficialOwnersMax) {
    return bad_request(
        "beneficial_owners must list 1 to " + std::to_string(kKybBeneficialOwnersMax) + " owners.",
        std::string(kParam));
  }
  std::vector<BeneficialOwner> parsed;
  Decimal total{0, 0};
  for (rapidjson::SizeType i = 0; i < owners.Size(); ++i) {
    auto owner = parse_owner(owners[i], element_path(kParam, i), validation, total);
    if (!owner.ok()) return owner.error();
    parsed.push_back(std::move(*owner));
  }
  if (compare(total, kHundredPercent) > 0) {
    return bad_request(
        "The owners' ownership_pct add up to " + format_decimal(total) + ", more than 100.",
        std::string(kParam));
  }
  return parsed;
}

Result<std::vector<KybDocument>> parse_documents(const rapidjson::Value& documents) {
  constexpr std::string_view kParam = "documents";
  if (documents.Empty() || documents.Size() > kKybDocumentsMax) {
    return bad_request(
        "documents must list 1 to " + std::to_string(kKybDocumentsMax) + " documents.",
        std::string(kParam));
  }
  std::vector<KybDocument> parsed;
  for (rapidjson::SizeType i = 0; i < documents.Size(); ++i) {
    const auto path = element_path(kParam, i);
    const auto& document = documents[i];
    if (!document.IsObject()) return bad_request(path + " must be an object.", path);
    if (auto status = json::check_object(document, kDocumentFields, path); !status.ok()) {
      return status.error();
    }
    KybDocument item{string_of(document, "type"), string_of(document, "reference")};
    if (!is_kyb_document_type(item.type)) {
      return bad_request("Unknown document type; the API reference lists the accepted types.",
                         json::child_path(path, "type"));
    }
    if (auto status = json::check_text(item.reference, json::child_path(path, "reference"),
                                       kKybDocumentReferenceLengthMax);
        !status.ok()) {
      return status.error();
    }
    parsed.push_back(std::move(item));
  }
  return parsed;
}

int days_in_month(int year, int month) {
  constexpr std::array<int, 12> kDays{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
  return month == 2 && leap ? 29 : kDays[static_cast<std::size_t>(month - 1)];
}

}  // namespace

bool is_calendar_date(std::string_view text) {
  if (text.size() != 10 || text[4] != '-' || text[7] != '-') return false;
  int parts[3] = {0, 0, 0};
  const std::size_t starts[3] = {0, 5, 8};
  const std::size_t lengths[3] = {4, 2, 2};
  for (std::size_t part = 0; part < 3; ++part) {
    for (std::size_t i = 0; i < lengths[part]; ++i) {
      const char c = text[starts[part] + i];
      if (c < '0' || c > '9') return false;
      parts[part] = parts[part] * 10 + (c - '0');
    }
  }
  const int year = parts[0];
  const int month = parts[1];
  const int day = parts[2];
  return year >= 1 && month >= 1 && month <= 12 && day >= 1 && day <= days_in_month(year, month);
}

bool is_kyb_document_type(std::string_view type) {
  return std::find(kKybDocumentTypes.begin(), kKybDocumentTypes.end(), type) !=
         kKybDocumentTypes.end();
}

Result<KybApplication> parse_kyb_application(const rapidjson::Value& body,
                                             const KybValidation& validation) {
  if (auto status = json::check_object(body, kKybSubmissionFields); !status.ok()) {
    return status.error();
  }
  KybApplication application{string_of(body, "legal_name"),
                             string_of(body, "registration_no"),
                             string_of(body, "incorporation_country"),
                             {},
                             {}};
  if (auto status = json::check_text(application.legal_name, "legal_name", kKybLegalNameLengthMax);
      !status.ok()) {
    return status.error();
  }
  if (auto status = json::check_text(application.registration_no, "registration_no",
                                     kKybRegistrationNumberLengthMax);
      !status.ok()) {
    return status.error();
  }
  if (auto status =
          check_country(validation, application.incorporation_country, "incorporation_country");
      !status.ok()) {
    return status.error();
  }
  auto owners = parse_owners(*json::member(body, "beneficial_owners"), validation);
  if (!owners.ok()) return owners.error();
  application.beneficial_owners = std::move(*owners);
  auto documents = parse_documents(*json::member(body, "documents"));
  if (!documents.ok()) return documents.error();
  application.documents = std::move(*documents);
  return application;
}

}  // namespace payrail::model
