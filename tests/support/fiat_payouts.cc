#include "tests/support/fiat_payouts.h"

#include <stdexcept>

#include "tests/support/payouts.h"

namespace payrail::testing {
namespace {

std::string object_of(const std::string& type,
                      const std::vector<std::pair<std::string, std::string>>& fields) {
  std::string json = R"({"type":")" + type + "\"";
  for (const auto& [name, value] : fields) json += ",\"" + name + "\":\"" + value + "\"";
  return json + "}";
}

}  // namespace

std::string AccountCase::account_json() const {
  return object_of(type, fields);
}

std::string AccountCase::value_of(const std::string& field) const {
  for (const auto& [name, value] : fields) {
    if (name == field) return value;
  }
  throw std::runtime_error("no field " + field);
}

std::string AccountCase::account_json_with_digit_changed(const std::string& field) const {
  auto changed = fields;
  for (auto& [name, value] : changed) {
    if (name != field) continue;
    char& last = value.back();
    if (last < '0' || last > '9') throw std::runtime_error(field + " does not end in a digit");
    last = static_cast<char>('0' + (last - '0' + 1) % 10);
  }
  return object_of(type, changed);
}

// Check digits computed with the published algorithms (docs/catalog.md), independently of the
// server's code; every value differs from the catalog's examples.
const std::vector<AccountCase>& account_cases() {
  static const std::vector<AccountCase> cases{
      {"AR",
       "ARS",
       "cbu",
       {{"cbu", "0170099240000123456782"}, {"cuit", "27305678916"}},
       {"cbu", "cuit"},
       {"cbu", "cuit"}},
      {"BR", "BRL", "pix", {{"pix_key", "52998224725"}}, {"pix_key"}, {"pix_key"}},
      {"BR",
       "BRL",
       "bank_account",
       {{"bank_code", "341"},
        {"branch_number", "0001"},
        {"account_number", "87654321"},
        {"tax_id", "11222333000181"}},
       {"tax_id"},
       {"account_number", "tax_id"}},
      {"CA",
       "CAD",
       "bank_account",
       {{"institution_number", "003"},
        {"transit_number", "12345"},
        {"account_number", "98765432101"}},
       {},
       {"account_number"}},
      {"CO",
       "COP",
       "bank_account",
       {{"bank_code", "1007"},
        {"account_type", "checking"},
        {"account_number", "987654321"},
        {"document_type", "NIT"},
        {"document_number", "8600343137"}},
       {"document_number"},
       {"account_number", "document_number"}},
      {"DE", "EUR", "iban", {{"iban", "DE44500105175407324931"}}, {"iban"}, {"iban"}},
      {"ES", "EUR", "iban", {{"iban", "ES6621000418401234567891"}}, {"iban"}, {"iban"}},
      {"FR", "EUR", "iban", {{"iban", "FR7630006000011234567890189"}}, {"iban"}, {"iban"}},
      {"GB",
       "GBP",
       "bank_account",
       {{"sort_code", "200000"}, {"account_number", "55779911"}},
       {},
       {"account_number"}},
      {"IN",
       "INR",
       "bank_account",
       {{"ifsc", "HDFC0000001"}, {"account_number", "50100012345678"}},
       {},
       {"account_number"}},
      {"MX", "MXN", "clabe", {{"clabe", "012180001234567899"}}, {"clabe"}, {"clabe"}},
      {"NG",
       "NGN",
       "nuban",
       {{"bank_code", "058"}, {"account_number", "0123456785"}},
       {"account_number"},
       {"account_number"}},
      {"PH",
       "PHP",
       "bank_account",
       {{"bank_code", "BOPIPHMM"}, {"account_number", "001234567890"}},
       {},
       {"account_number"}},
      {"US",
       "USD",
       "bank_account",
       {{"routing_number", "011000015"},
        {"account_number", "000123456789"},
        {"account_type", "savings"}},
       {"routing_number"},
       {"account_number"}},
  };
  return cases;
}

const AccountCase& mexico_case() {
  for (const auto& account : account_cases()) {
    if (account.country == "MX") return account;
  }
  throw std::runtime_error("no MX case");
}

std::string fiat_payout_body(const std::string& amount, const std::string& currency,
                             const std::string& country, const std::string& beneficiary_name,
                             const std::string& account_json) {
  return R"({"amount":")" + amount + R"(","currency":")" + currency + R"(","country":")" + country +
         R"(","beneficiary":{"name":")" + beneficiary_name + R"(","account":)" + account_json +
         "}}";
}

std::string fiat_payout_body(const std::string& amount, const AccountCase& account,
                             const std::string& beneficiary_name,
                             const std::string& metadata_json) {
  auto body = fiat_payout_body(amount, account.currency, account.country, beneficiary_name,
                               account.account_json());
  if (!metadata_json.empty()) body.insert(body.size() - 1, R"(,"metadata":)" + metadata_json);
  return body;
}

HttpResult create_fiat_payout(const HttpClient& http, const std::string& api_key,
                              const std::string& idempotency_key, const std::string& body) {
  return http.post("/v1/fiat-payouts", body,
                   {{"X-API-Key", api_key}, {"Idempotency-Key", idempotency_key}});
}

std::string wait_for_fiat_status(const HttpClient& http, const std::string& api_key,
                                 const std::string& id, const std::set<std::string>& statuses,
                                 std::chrono::milliseconds timeout) {
  return wait_for_resource_status(http, api_key, "/v1/fiat-payouts/" + id, statuses, timeout);
}

}  // namespace payrail::testing
