#include "schemas/model/contract/catalog_openapi.h"

#include <algorithm>
#include <map>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

using json::write_key;
using json::write_key_string;

constexpr std::string_view kSchemasPointer = "#/components/schemas/";

void write_ref(json::Writer& writer, std::string_view schema) {
  writer.StartObject();
  write_key_string(writer, "$ref", std::string(kSchemasPointer) + std::string(schema));
  writer.EndObject();
}

void write_string_enum(json::Writer& writer, std::string_view name, std::string_view description,
                       const std::vector<std::string_view>& values) {
  write_key(writer, name);
  writer.StartObject();
  write_key_string(writer, "type", "string");
  write_key_string(writer, "description", description);
  write_key(writer, "enum");
  writer.StartArray();
  for (const auto value : values) json::write_string(writer, value);
  writer.EndArray();
  writer.EndObject();
}

std::string identifiers_note(const PaymentMethod& method) {
  std::string names;
  for (const auto& field : method.fields) {
    if (field.identifier) names += (names.empty() ? "`" : ", `") + std::string(field.name) + "`";
  }
  return names.empty() ? ""
                       : " Identifiers (" + names +
                             ") are stored encrypted and shown masked (`••••1234`) in "
                             "responses and events.";
}

void write_field(json::Writer& writer, const AccountField& field) {
  write_key(writer, field.name);
  writer.StartObject();
  write_key_string(writer, "type", "string");
  write_key_string(writer, "description", field.description);
  write_key_string(writer, "pattern", field.pattern);
  write_key(writer, "examples");
  writer.StartArray();
  json::write_string(writer, field.example);
  writer.EndArray();
  writer.EndObject();
}

void write_account_schema(json::Writer& writer, const PaymentMethod& method) {
  write_key(writer, fiat_account_schema_name(method.country, method.type));
  writer.StartObject();
  write_key_string(writer, "type", "object");
  write_key_string(writer, "title", std::string(method.country) + " " + std::string(method.type));
  write_key_string(writer, "description",
                   std::string(method.summary) + " (" + std::string(method.country) + ", " +
                       std::string(method.currency) + ")." + identifiers_note(method));
  write_key(writer, "required");
  writer.StartArray();
  json::write_string(writer, "type");
  for (const auto& field : method.fields) json::write_string(writer, field.name);
  writer.EndArray();
  write_key(writer, "additionalProperties");
  writer.Bool(false);
  write_key(writer, "properties");
  writer.StartObject();
  write_key(writer, "type");
  writer.StartObject();
  write_key_string(writer, "type", "string");
  write_key_string(writer, "const", method.type);
  write_key_string(writer, "description", "The payout method.");
  writer.EndObject();
  for (const auto& field : method.fields) write_field(writer, field);
  writer.EndObject();
  writer.EndObject();
}

// Payout methods by type, in table order.
std::map<std::string_view, std::vector<const PaymentMethod*>> payout_methods_by_type() {
  std::map<std::string_view, std::vector<const PaymentMethod*>> by_type;
  for (const auto& method : payment_methods()) {
    if (method.direction == Direction::payout) by_type[method.type].push_back(&method);
  }
  return by_type;
}

// The schema a `type` value maps to: the method's own, or the oneOf of its countries.
std::string type_schema_name(const std::vector<const PaymentMethod*>& methods) {
  if (methods.size() == 1) return fiat_account_schema_name(methods[0]->country, methods[0]->type);
  return "FiatAccount_" + std::string(methods[0]->type);
}

// The `type` member every account of a payout method carries.
void write_type_member(json::Writer& writer, std::string_view type) {
  writer.StartObject();
  write_key_string(writer, "type", "object");
  write_key(writer, "required");
  writer.StartArray();
  json::write_string(writer, "type");
  writer.EndArray();
  write_key(writer, "properties");
  writer.StartObject();
  write_key(writer, "type");
  writer.StartObject();
  write_key_string(writer, "type", "string");
  write_key_string(writer, "const", type);
  write_key_string(writer, "description", "The payout method.");
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
}

// A type offered in several countries: the `type` member, and any of the countries' accounts.
// An allOf rather than a bare anyOf, because client generators attach a discriminator's value
// only to an object schema or an allOf (openapi-typescript warns on anything else), and read
// the allOf as "the member and one of the accounts" (an object beside an anyOf would be read
// as "either").
void write_type_groups(json::Writer& writer) {
  for (const auto& [type, methods] : payout_methods_by_type()) {
    if (methods.size() < 2) continue;
    write_key(writer, type_schema_name(methods));
    writer.StartObject();
    write_key_string(writer, "description",
                     "A `" + std::string(type) +
                         "` account; its fields depend on the payout's country (exactly one "
                         "variant matches an account of that country).");
    write_key(writer, "allOf");
    writer.StartArray();
    write_type_member(writer, type);
    writer.StartObject();
    write_key(writer, "anyOf");
    writer.StartArray();
    for (const auto* method : methods) {
      write_ref(writer, fiat_account_schema_name(method->country, method->type));
    }
    writer.EndArray();
    writer.EndObject();
    writer.EndArray();
    writer.EndObject();
  }
}

void write_beneficiary_account(json::Writer& writer) {
  const auto by_type = payout_methods_by_type();
  write_key(writer, "FiatBeneficiaryAccount");
  writer.StartObject();
  write_key_string(writer, "description",
                   "The beneficiary's account: `type` names one of the payout methods of the "
                   "payout's country (GET /v1/payment-methods) and the other members are exactly "
                   "that method's required fields. A missing or invalid field is 422 "
                   "`unsupported_country` with `param` naming it (`beneficiary.account.clabe`).");
  write_key(writer, "oneOf");
  writer.StartArray();
  for (const auto& [type, methods] : by_type) write_ref(writer, type_schema_name(methods));
  writer.EndArray();
  write_key(writer, "discriminator");
  writer.StartObject();
  write_key_string(writer, "propertyName", "type");
  write_key(writer, "mapping");
  writer.StartObject();
  for (const auto& [type, methods] : by_type) {
    write_key_string(writer, type, std::string(kSchemasPointer) + type_schema_name(methods));
  }
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
}

void write_enums(json::Writer& writer) {
  std::vector<std::string_view> types;
  for (const auto& method : payment_methods()) {
    if (std::find(types.begin(), types.end(), method.type) == types.end()) {
      types.push_back(method.type);
    }
  }
  write_string_enum(writer, "PaymentMethodType",
                    "A payout method (the `type` of a beneficiary account) or a collection "
                    "method.",
                    types);
  std::vector<std::string_view> countries;
  for (const auto& country : catalog_countries()) countries.push_back(country.country);
  write_string_enum(writer, "CatalogCountry",
                    "An ISO 3166-1 alpha-2 code of a country with payout or collection methods.",
                    countries);
  std::vector<std::string_view> currency_codes;
  for (const auto& currency : currencies()) currency_codes.push_back(currency.code);
  write_string_enum(writer, "CatalogCurrency", "An ISO 4217 code of a corridor currency.",
                    currency_codes);
  std::vector<std::string_view> rate_codes;
  for (const auto& rate : reference_rates()) rate_codes.push_back(rate.code);
  write_string_enum(writer, "RateCode",
                    "A currency or asset `GET /v1/rates` quotes: every corridor currency, USDC, "
                    "USDT and ETH.",
                    rate_codes);
}

}  // namespace

std::string fiat_account_schema_name(std::string_view country, std::string_view type) {
  return "FiatAccount_" + std::string(country) + "_" + std::string(type);
}

std::string catalog_openapi_fragment() {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  writer.StartObject();
  write_key(writer, "components");
  writer.StartObject();
  write_key(writer, "schemas");
  writer.StartObject();
  for (const auto& method : payment_methods()) {
    if (method.direction == Direction::payout) write_account_schema(writer, method);
  }
  write_type_groups(writer);
  write_beneficiary_account(writer);
  write_enums(writer);
  writer.EndObject();
  writer.EndObject();
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace payrail::model
