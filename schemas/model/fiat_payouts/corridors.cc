#include "schemas/model/fiat_payouts/corridors.h"

#include <algorithm>
#include <array>
#include <map>
#include <regex>
#include <set>

#include "schemas/model/fiat_payouts/account_checks.h"

namespace payrail::model {
namespace {

using Check = FieldCheck;

// The table. Settlement times are typical for the scheme, in calendar minutes, from the moment a
// payout is sent to the partner until the beneficiary's bank has credited it.

constexpr std::array kCurrencies{
    Currency{"ARS", 2}, Currency{"BRL", 2}, Currency{"CAD", 2}, Currency{"COP", 2},
    Currency{"EUR", 2}, Currency{"GBP", 2}, Currency{"INR", 2}, Currency{"MXN", 2},
    Currency{"NGN", 2}, Currency{"PHP", 2}, Currency{"USD", 2},
};

constexpr std::array kArgentinaCbu{
    AccountField{"cbu",
                 "The 22-digit CBU (Clave Bancaria Uniforme); both check digits are verified.",
                 R"(^[0-9]{22}$)", "2850590940090418135201", Check::cbu, true},
    AccountField{"cuit",
                 "The account holder's 11-digit CUIT or CUIL, without hyphens; the check digit "
                 "is verified.",
                 R"(^[0-9]{11}$)", "20267565393", Check::cuit, true},
};

constexpr std::array kBrazilPix{
    AccountField{
        "pix_key",
        "The beneficiary's Pix key: a CPF (11 digits) or CNPJ (14 digits) without "
        "punctuation (check digits verified), an e-mail address (at most 77 "
        "characters), a phone number as +55 followed by the area code and number, or a "
        "random key (a lower-case UUID).",
        R"(^([0-9]{11}|[0-9]{14}|\+55[1-9]{2}[0-9]{8,9}|[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}|[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$)",
        "maria.silva@example.com", Check::pix_key, true},
};

constexpr std::array kBrazilBankAccount{
    AccountField{"bank_code", "The bank's 3-digit COMPE code (for example 001).", R"(^[0-9]{3}$)",
                 "001", Check::pattern_only, false},
    AccountField{"branch_number", "The 4-digit branch (agência) number, without check digit.",
                 R"(^[0-9]{4}$)", "1234", Check::pattern_only, false},
    AccountField{"account_number",
                 "The account number followed by its check digit (0-9 or X), without a hyphen.",
                 R"(^[0-9]{4,12}[0-9X]$)", "12345678", Check::pattern_only, true},
    AccountField{"tax_id",
                 "The account holder's CPF (11 digits) or CNPJ (14 digits), digits only; both "
                 "check digits are verified.",
                 R"(^([0-9]{11}|[0-9]{14})$)", "39053344705", Check::cpf_or_cnpj, true},
};

constexpr std::array kCanadaBankAccount{
    AccountField{"institution_number", "The 3-digit financial institution number.", R"(^[0-9]{3}$)",
                 "001", Check::pattern_only, false},
    AccountField{"transit_number", "The 5-digit branch transit number.", R"(^[0-9]{5}$)", "00011",
                 Check::pattern_only, false},
    AccountField{"account_number", "The account number, 7 to 12 digits.", R"(^[0-9]{7,12}$)",
                 "1234567", Check::pattern_only, true},
};

constexpr std::array kColombiaBankAccount{
    AccountField{"bank_code", "The bank's 4-digit ACH Colombia code (for example 1007).",
                 R"(^[0-9]{4}$)", "1007", Check::pattern_only, false},
    AccountField{"account_type", "savings (cuenta de ahorros) or checking (cuenta corriente).",
                 R"(^(savings|checking)$)", "savings", Check::pattern_only, false},
    AccountField{"account_number", "The account number, 6 to 17 digits.", R"(^[0-9]{6,17}$)",
                 "12345678901", Check::pattern_only, true},
    AccountField{"document_type",
                 "The account holder's document: CC (cédula de ciudadanía), CE (cédula de "
                 "extranjería), NIT (company tax id) or PP (passport).",
                 R"(^(CC|CE|NIT|PP)$)", "NIT", Check::pattern_only, false},
    AccountField{"document_number",
                 "The document number without dots or hyphens: CC and CE 5 to 10 digits; NIT 10 "
                 "digits including its check digit (verified); PP 5 to 15 capital letters or "
                 "digits.",
                 R"(^[0-9A-Z]{5,15}$)", "8001972684", Check::co_document, true},
};

constexpr std::array kGermanyIban{
    AccountField{"iban", "The German IBAN: DE and 20 digits (22 characters), no spaces.",
                 R"(^DE[0-9]{20}$)", "DE89370400440532013000", Check::iban, true},
};
constexpr std::array kSpainIban{
    AccountField{"iban", "The Spanish IBAN: ES and 22 digits (24 characters), no spaces.",
                 R"(^ES[0-9]{22}$)", "ES9121000418450200051332", Check::iban, true},
};
constexpr std::array kFranceIban{
    AccountField{"iban",
                 "The French IBAN: FR, 12 digits, 11 capital letters or digits and 2 digits (27 "
                 "characters), no spaces.",
                 R"(^FR[0-9]{12}[0-9A-Z]{11}[0-9]{2}$)", "FR1420041010050500013M02606", Check::iban,
                 true},
};

constexpr std::array kUnitedKingdomBankAccount{
    AccountField{"sort_code", "The 6-digit sort code, without hyphens.", R"(^[0-9]{6}$)", "601613",
                 Check::pattern_only, false},
    AccountField{"account_number", "The 8-digit account number.", R"(^[0-9]{8}$)", "31926819",
                 Check::pattern_only, true},
};

constexpr std::array kIndiaBankAccount{
    AccountField{"ifsc",
                 "The branch's IFSC: 4 capital letters (the bank), 0, then 6 capital letters or "
                 "digits (the branch).",
                 R"(^[A-Z]{4}0[A-Z0-9]{6}$)", "SBIN0000300", Check::pattern_only, false},
    AccountField{"account_number", "The account number, 9 to 18 digits.", R"(^[0-9]{9,18}$)",
                 "12345678901", Check::pattern_only, true},
};

constexpr std::array kMexicoClabe{
    AccountField{"clabe",
                 "The 18-digit CLABE (Clave Bancaria Estandarizada); its last digit is a check "
                 "digit, verified.",
                 R"(^[0-9]{18}$)", "032180000118359719", Check::clabe, true},
};

constexpr std::array kNigeriaNuban{
    AccountField{"bank_code",
                 "The CBN code of the bank: 3 digits for a deposit money bank (for example 058) "
                 "or the 6-digit institution code.",
                 R"(^([0-9]{3}|[0-9]{6})$)", "011", Check::pattern_only, false},
    AccountField{"account_number",
                 "The 10-digit NUBAN; its last digit is a check digit over the bank code and "
                 "the serial number, verified.",
                 R"(^[0-9]{10}$)", "0000014579", Check::nuban, true},
};

constexpr std::array kPhilippinesBankAccount{
    AccountField{"bank_code",
                 "The bank's SWIFT BIC: 4 letters, PH, 2 letters or digits, and optionally a "
                 "3-character branch code (for example BNORPHMM).",
                 R"(^[A-Z]{4}PH[A-Z0-9]{2}([A-Z0-9]{3})?$)", "BNORPHMM", Check::pattern_only,
                 false},
    AccountField{"account_number", "The account number, 8 to 16 digits.", R"(^[0-9]{8,16}$)",
                 "1234567890", Check::pattern_only, true},
};

constexpr std::array kUnitedStatesBankAccount{
    AccountField{"routing_number", "The 9-digit ABA routing number; its checksum is verified.",
                 R"(^[0-9]{9}$)", "021000021", Check::aba_routing, false},
    AccountField{"account_number", "The account number, 4 to 17 digits.", R"(^[0-9]{4,17}$)",
                 "123456789", Check::pattern_only, true},
    AccountField{"account_type", "checking or savings.", R"(^(checking|savings)$)", "checking",
                 Check::pattern_only, false},
};

constexpr int kMinutes = 1;
constexpr int kHours = 60;
constexpr int kDays = 24 * kHours;

constexpr auto payout = Direction::payout;
constexpr auto collection = Direction::collection;

const std::array kMethods{
    PaymentMethod{"AR", "ARS", payout, "cbu", "Transferencia inmediata to a CBU", kArgentinaCbu,
                  30 * kMinutes},
    PaymentMethod{"BR", "BRL", payout, "pix", "Pix transfer to a Pix key", kBrazilPix,
                  10 * kMinutes},
    PaymentMethod{"BR", "BRL", payout, "bank_account", "TED transfer to a bank account",
                  kBrazilBankAccount, 1 * kDays},
    PaymentMethod{"CA", "CAD", payout, "bank_account", "EFT credit to a bank account",
                  kCanadaBankAccount, 2 * kDays},
    PaymentMethod{"CO", "COP", payout, "bank_account", "ACH Colombia transfer to a bank account",
                  kColombiaBankAccount, 1 * kDays},
    PaymentMethod{"DE", "EUR", payout, "iban", "SEPA credit transfer to an IBAN", kGermanyIban,
                  1 * kDays},
    PaymentMethod{"ES", "EUR", payout, "iban", "SEPA credit transfer to an IBAN", kSpainIban,
                  1 * kDays},
    PaymentMethod{"FR", "EUR", payout, "iban", "SEPA credit transfer to an IBAN", kFranceIban,
                  1 * kDays},
    PaymentMethod{"GB", "GBP", payout, "bank_account", "Faster Payments transfer to an account",
                  kUnitedKingdomBankAccount, 2 * kHours},
    PaymentMethod{"IN", "INR", payout, "bank_account", "IMPS transfer to a bank account",
                  kIndiaBankAccount, 2 * kHours},
    PaymentMethod{"MX", "MXN", payout, "clabe", "SPEI transfer to a CLABE", kMexicoClabe,
                  30 * kMinutes},
    PaymentMethod{"NG", "NGN", payout, "nuban", "NIP transfer to a NUBAN account", kNigeriaNuban,
                  30 * kMinutes},
    PaymentMethod{"PH", "PHP", payout, "bank_account", "InstaPay transfer to a bank account",
                  kPhilippinesBankAccount, 30 * kMinutes},
    PaymentMethod{"US", "USD", payout, "bank_account", "ACH credit to a bank account",
                  kUnitedStatesBankAccount, 2 * kDays},
    PaymentMethod{"CA",
                  "CAD",
                  collection,
                  "interac_etransfer",
                  "Interac e-Transfer sent by the customer",
                  {},
                  30 * kMinutes},
    PaymentMethod{"CA", "CAD", collection, "eft", "EFT credit to a virtual account", {}, 2 * kDays},
    PaymentMethod{"US", "USD", collection, "ach", "ACH credit to a virtual account", {}, 2 * kDays},
};

// Longer values are refused before any pattern runs (std::regex recurses per character).
constexpr std::size_t kFieldLengthMax = 100;
// The Central Bank of Brazil's limit for e-mail Pix keys.
constexpr std::size_t kPixEmailLengthMax = 77;

// Patterns compiled once; regex_match on a const std::regex is safe from any thread.
const std::regex& compiled(std::string_view pattern) {
  static const std::map<std::string_view, std::regex> patterns = [] {
    std::map<std::string_view, std::regex> compiled_patterns;
    for (const auto& method : kMethods) {
      for (const auto& field : method.fields) {
        compiled_patterns.try_emplace(field.pattern, std::string(field.pattern),
                                      std::regex::ECMAScript);
      }
    }
    return compiled_patterns;
  }();
  return patterns.at(pattern);
}

Error invalid(std::string param, std::string message) {
  return Error::make(ErrorCode::unsupported_country, std::move(message), std::move(param));
}

const std::string* value_of(const std::vector<AccountValue>& values, std::string_view name) {
  for (const auto& value : values) {
    if (value.field->name == name) return &value.value;
  }
  return nullptr;
}

bool co_document_valid(std::string_view number, const std::string* type) {
  const auto digits_between = [&](std::size_t low, std::size_t high) {
    return account_checks::is_digits(number) && number.size() >= low && number.size() <= high;
  };
  if (type == nullptr) return false;
  if (*type == "NIT") return account_checks::nit_valid(number);
  if (*type == "PP") return true;  // the pattern: 5 to 15 capital letters or digits
  return digits_between(5, 10);    // CC, CE
}

// RFC 9562's nil UUID: a Pix random key is a generated UUID, never this one.
constexpr std::string_view kNilUuid = "00000000-0000-0000-0000-000000000000";

// The check beyond the pattern; `earlier` holds the fields validated before this one.
bool passes_check(const AccountField& field, std::string_view value,
                  const std::vector<AccountValue>& earlier) {
  namespace checks = account_checks;
  // No scheme assigns zero as an account, a key, a tax id, an institution, a branch or a routing
  // code: a field of zeros is refused whatever its check digits say (all zeros passes every
  // weighted sum). The schemes' own rules beyond that are in account_checks.cc.
  if (checks::is_all_zeros(value) || value == kNilUuid) return false;
  switch (field.check) {
    case Check::pattern_only:
      return true;
    case Check::clabe:
      return checks::clabe_valid(value);
    case Check::cpf_or_cnpj:
      return value.size() == 11 ? checks::cpf_valid(value) : checks::cnpj_valid(value);
    case Check::pix_key:
      if (value.find('@') != std::string_view::npos) return value.size() <= kPixEmailLengthMax;
      if (value.size() == 11 && checks::is_digits(value)) return checks::cpf_valid(value);
      if (value.size() == 14 && checks::is_digits(value)) return checks::cnpj_valid(value);
      return true;
    case Check::cbu:
      return checks::cbu_valid(value);
    case Check::cuit:
      return checks::cuit_valid(value);
    case Check::nuban: {
      const auto* bank_code = value_of(earlier, "bank_code");
      return bank_code != nullptr && checks::nuban_valid(value, *bank_code);
    }
    case Check::iban:
      return checks::iban_valid(value);
    case Check::aba_routing:
      return checks::aba_routing_valid(value);
    case Check::co_document:
      return co_document_valid(value, value_of(earlier, "document_type"));
  }
  return false;
}

Result<std::string> validate_field(const AccountField& field, const rapidjson::Value& account,
                                   const std::vector<AccountValue>& earlier,
                                   const std::string& param) {
  const auto* member = json::member(account, std::string(field.name).c_str());
  if (member == nullptr) return invalid(param, "Missing required field: " + param + ".");
  if (!member->IsString()) return invalid(param, param + " must be a string.");
  const std::string_view value(member->GetString(), member->GetStringLength());
  if (value.size() > kFieldLengthMax ||
      !std::regex_match(value.begin(), value.end(), compiled(field.pattern))) {
    return invalid(param,
                   param + " is not in the expected format: " + std::string(field.description));
  }
  if (!passes_check(field, value, earlier)) {
    return invalid(param, param + " is not valid: " + std::string(field.description));
  }
  return std::string(value);
}

std::string join_types(const std::vector<const PaymentMethod*>& methods) {
  std::string list;
  for (const auto* method : methods) {
    list += (list.empty() ? "" : ", ") + std::string(method->type);
  }
  return list;
}

Result<const PaymentMethod*> method_of(std::string_view country, const rapidjson::Value& account,
                                       const std::string& path) {
  const auto methods = payout_methods(country);
  const auto param = json::child_path(path, "type");
  const auto* type = json::member(account, "type");
  if (type == nullptr || !type->IsString()) {
    return invalid(param, param + " must name one of the payout methods of " +
                              std::string(country) + ": " + join_types(methods) + ".");
  }
  const auto* method =
      find_payout_method(country, std::string_view(type->GetString(), type->GetStringLength()));
  if (method == nullptr) {
    return invalid(param, param + " must be one of the payout methods of " + std::string(country) +
                              ": " + join_types(methods) + ".");
  }
  return method;
}

// Members other than `type` and the method's fields, and repeated members, are refused.
Status check_members(const PaymentMethod& method, const rapidjson::Value& account,
                     const std::string& path) {
  std::set<std::string_view> seen;
  for (auto member = account.MemberBegin(); member != account.MemberEnd(); ++member) {
    const std::string_view name(member->name.GetString(), member->name.GetStringLength());
    const auto param = json::child_path(path, name);
    if (!seen.insert(name).second) return invalid(param, "Duplicate field: " + param + ".");
    const bool known = name == "type" || std::any_of(method.fields.begin(), method.fields.end(),
                                                     [&](const auto& f) { return f.name == name; });
    if (!known) {
      return invalid(param, "Unknown field: " + param + " (the " + std::string(method.type) +
                                " method of " + std::string(method.country) +
                                " does not take it).");
    }
  }
  return ok_status();
}

void write_account(json::Writer& writer, const ValidatedAccount& account, bool masked) {
  writer.StartObject();
  json::write_key_string(writer, "type", account.type());
  for (const auto& value : account.values) {
    json::write_key_string(
        writer, value.field->name,
        masked && value.field->identifier ? mask_identifier(value.value) : value.value);
  }
  writer.EndObject();
}

std::string account_json(const ValidatedAccount& account, bool masked) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  write_account(writer, account, masked);
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

std::string_view direction_name(Direction direction) {
  return direction == Direction::payout ? "payout" : "collection";
}

std::optional<Direction> parse_direction(std::string_view text) {
  if (text == "payout") return Direction::payout;
  if (text == "collection") return Direction::collection;
  return std::nullopt;
}

std::span<const PaymentMethod> payment_methods() {
  return kMethods;
}

std::span<const Currency> currencies() {
  return kCurrencies;
}

std::optional<int> minor_units(std::string_view currency) {
  for (const auto& entry : kCurrencies) {
    if (entry.code == currency) return entry.minor_units;
  }
  return std::nullopt;
}

std::vector<CountryMethods> catalog_countries() {
  std::map<std::string_view, CountryMethods> countries;
  for (const auto& method : kMethods) {
    auto& entry = countries[method.country];
    entry.country = method.country;
    if (std::find(entry.currencies.begin(), entry.currencies.end(), method.currency) ==
        entry.currencies.end()) {
      entry.currencies.push_back(method.currency);
    }
    auto& list =
        method.direction == Direction::payout ? entry.payout_methods : entry.collection_methods;
    list.push_back(method.type);
  }
  std::vector<CountryMethods> sorted;
  for (auto& [code, entry] : countries) sorted.push_back(std::move(entry));
  return sorted;
}

std::vector<const PaymentMethod*> payout_methods(std::string_view country) {
  std::vector<const PaymentMethod*> methods;
  for (const auto& method : kMethods) {
    if (method.direction == Direction::payout && method.country == country) {
      methods.push_back(&method);
    }
  }
  return methods;
}

std::optional<std::string_view> payout_currency(std::string_view country) {
  const auto methods = payout_methods(country);
  if (methods.empty()) return std::nullopt;
  return methods.front()->currency;
}

const PaymentMethod* find_payout_method(std::string_view country, std::string_view type) {
  for (const auto* method : payout_methods(country)) {
    if (method->type == type) return method;
  }
  return nullptr;
}

const PaymentMethod* find_collection_method(std::string_view type) {
  for (const auto& method : kMethods) {
    if (method.direction == Direction::collection && method.type == type) return &method;
  }
  return nullptr;
}

bool collection_accepts_currency(const PaymentMethod& method, std::string_view currency) {
  return method.direction == Direction::collection && method.currency == currency;
}

std::string mask_identifier(std::string_view value) {
  constexpr std::string_view kMask = "••••";
  constexpr std::size_t kVisible = 4;
  if (value.size() <= kVisible) return std::string(kMask);
  return std::string(kMask) + std::string(value.substr(value.size() - kVisible));
}

std::string ValidatedAccount::full_json() const {
  return account_json(*this, false);
}

std::string ValidatedAccount::masked_json() const {
  return account_json(*this, true);
}

void ValidatedAccount::write_masked(json::Writer& writer) const {
  write_account(writer, *this, true);
}

void ValidatedAccount::write_full(json::Writer& writer) const {
  write_account(writer, *this, false);
}

ValidatedAccount example_account(const PaymentMethod& method) {
  ValidatedAccount account;
  account.method = &method;
  for (const auto& field : method.fields)
    account.values.push_back({&field, std::string(field.example)});
  return account;
}

Result<ValidatedAccount> validate_beneficiary_account(std::string_view country,
                                                      std::string_view currency,
                                                      const rapidjson::Value& account,
                                                      std::string_view path) {
  const auto expected_currency = payout_currency(country);
  if (!expected_currency) {
    return invalid("country",
                   "Fiat payouts to this country are not supported; "
                   "GET /v1/countries lists the supported ones.");
  }
  if (currency != *expected_currency) {
    return invalid("currency", "The currency of fiat payouts to " + std::string(country) + " is " +
                                   std::string(*expected_currency) + ".");
  }
  const std::string prefix(path);
  if (!account.IsObject()) return invalid(prefix, prefix + " must be an object.");
  auto method = method_of(country, account, prefix);
  if (!method.ok()) return method.error();
  if (auto members = check_members(**method, account, prefix); !members.ok()) {
    return members.error();
  }
  ValidatedAccount validated;
  validated.method = *method;
  for (const auto& field : (*method)->fields) {
    auto value =
        validate_field(field, account, validated.values, json::child_path(prefix, field.name));
    if (!value.ok()) return value.error();
    validated.values.push_back({&field, std::move(*value)});
  }
  return validated;
}

}  // namespace payrail::model
