// The corridor table: every fiat payout method and collection method Payrail offers, per country
// and currency, with the beneficiary account fields each payout method requires. It is the one
// source of truth for corridors (docs/catalog.md): request validation (validate_beneficiary_account
// below), the catalog endpoints (GET /v1/countries, GET /v1/payment-methods), the account schemas
// of the OpenAPI description (schemas/model/contract/catalog_openapi.h), the operator CLI's
// corridor and rail names, and the rates table's coverage (a unit test) all read it. Nothing about
// a corridor is written anywhere else.
//
// For the fiat payout handler (POST /v1/fiat-payouts):
//   1. amount: parse_amount(text, *minor_units(currency), "amount") once the corridor is known.
//   2. validate_beneficiary_account(country, currency, body["beneficiary"]["account"]) checks,
//      in this order: the country has payout methods (else 422 unsupported_country, param
//      `country`); the currency is the country's payout currency (param `currency`); `account` is
//      an object whose `type` names one of the country's payout methods (param
//      `beneficiary.account.type`); no member other than `type` and the method's fields, no
//      duplicate member (param `beneficiary.account.<member>`); every field present, a string,
//      matching its pattern and check digits (param `beneficiary.account.<field>`). Every
//      failure is 422 unsupported_country, and no message ever repeats the value sent.
//   3. The result carries the method (settlement time for tracking.estimated_settlement) and the
//      fields: full_json() is the account in full (seal it with crypto::DataKey before storing;
//      it is itself a valid `account` object, so it can be validated again after unsealing),
//      masked_json() / write_masked() show identifiers as "••••1234" (responses, list items,
//      event payloads and log lines use only this form).
// For collections (POST /v1/collections): find_collection_method(method) gives the method's
// country, currency and settlement time, or nullptr for a method that does not exist; with
// collection_accepts_currency() the handler answers 422 unsupported_method for either.
//
// Patterns are ECMA-262 regular expressions (what JSON Schema uses), anchored, over the exact
// text accepted: values are taken as sent, in canonical form (digits and capitals without
// spaces, dots or hyphens), so the pattern published by the catalog is exactly the server's rule.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/result.h"

namespace payrail::model {

enum class Direction { payout, collection };
std::string_view direction_name(Direction direction);
std::optional<Direction> parse_direction(std::string_view text);

// How a field is checked beyond its pattern (schemas/model/fiat_payouts/account_checks.h has the
// arithmetic).
enum class FieldCheck {
  pattern_only,
  clabe,
  cpf_or_cnpj,  // 11 digits: CPF, 14 digits: CNPJ
  pix_key,      // CPF or CNPJ digits verified; e-mail at most 77 characters
  cbu,
  cuit,
  nuban,  // needs the account's `bank_code`, listed before it
  iban,   // mod 97; the country's length and format are the pattern
  aba_routing,
  co_document,  // by `document_type` (listed before it): NIT has a DIAN check digit
};

struct AccountField {
  std::string_view name;
  std::string_view description;
  std::string_view pattern;
  std::string_view example;  // a valid value (published test vectors; the unit tests check it)
  FieldCheck check;
  // An account identifier (account number, key, personal tax id): stored encrypted at rest and
  // shown only masked ("••••1234") in responses, events and logs.
  bool identifier;
};

struct Currency {
  std::string_view code;  // ISO 4217
  int minor_units;        // ISO 4217 minor units: the most decimals an amount may have
};

struct PaymentMethod {
  std::string_view country;   // ISO 3166-1 alpha-2
  std::string_view currency;  // ISO 4217
  Direction direction;
  std::string_view type;     // what `beneficiary.account.type` or a collection's `method` names
  std::string_view summary;  // "SPEI transfer to a CLABE"
  std::span<const AccountField> fields;  // payouts: the required account fields, in order
  int typical_settlement_minutes;        // processing -> funds available, typically
};

// Every method, payouts first, grouped by country in alphabetical order.
std::span<const PaymentMethod> payment_methods();
// Every currency a method uses.
std::span<const Currency> currencies();
// Minor units of a corridor currency, nullopt for any other code.
std::optional<int> minor_units(std::string_view currency);

// One country of the catalog (GET /v1/countries).
struct CountryMethods {
  std::string_view country;
  std::vector<std::string_view> currencies;  // of its methods, in table order, no repeats
  std::vector<std::string_view> payout_methods;
  std::vector<std::string_view> collection_methods;
};
// Every country with at least one method, sorted by code.
std::vector<CountryMethods> catalog_countries();

// A country's payout methods (empty when it has none) and its payout currency.
std::vector<const PaymentMethod*> payout_methods(std::string_view country);
std::optional<std::string_view> payout_currency(std::string_view country);
const PaymentMethod* find_payout_method(std::string_view country, std::string_view type);

// A collection method by name ("interac_etransfer", "ach", "eft"), or nullptr.
const PaymentMethod* find_collection_method(std::string_view type);
bool collection_accepts_currency(const PaymentMethod& method, std::string_view currency);

// "••••" and the last four characters (only "••••" for four characters or fewer).
std::string mask_identifier(std::string_view value);

struct AccountValue {
  const AccountField* field;
  std::string value;  // as validated (canonical form)
};

struct ValidatedAccount {
  const PaymentMethod* method = nullptr;
  std::vector<AccountValue> values;  // in the method's field order

  std::string_view type() const { return method->type; }
  // {"type": ..., <field>: <value>, ...} in full. Secret: seal it before storing.
  std::string full_json() const;
  // The same with identifiers masked: the only form for responses, events and logs.
  std::string masked_json() const;
  // The masked object as the value of an already written key.
  void write_masked(json::Writer& writer) const;
  // The object in full, likewise (only for values that are not anyone's account: examples).
  void write_full(json::Writer& writer) const;
};

// A payout method's example account: every field at its table example (published test vectors
// and documentation values, never a real person's account). It passes validation.
ValidatedAccount example_account(const PaymentMethod& method);

inline constexpr std::string_view kBeneficiaryAccountParam = "beneficiary.account";

// See the header comment for the order of checks and the params; `path` prefixes each param.
Result<ValidatedAccount> validate_beneficiary_account(
    std::string_view country, std::string_view currency, const rapidjson::Value& account,
    std::string_view path = kBeneficiaryAccountParam);

}  // namespace payrail::model
