// The OpenAPI description as served (model::openapi_document()) holds the account schemas and
// enums generated from the corridor and rates tables, and they match the tables field by field;
// the hand-written examples of the catalog fragment agree with the table too.
#include "schemas/model/contract/catalog_openapi.h"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <string>

#include "schemas/model/common/json.h"
#include "schemas/model/contract/contracts.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

class CatalogOpenApi : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto text = openapi_document();
    document_.Parse(text.data(), text.size());
    ASSERT_FALSE(document_.HasParseError());
    ASSERT_TRUE(document_["components"]["schemas"].IsObject());
  }

  const rapidjson::Value* schema(const std::string& name) const {
    const auto& schemas = document_["components"]["schemas"];
    return schemas.HasMember(name.c_str()) ? &schemas[name.c_str()] : nullptr;
  }

  static std::set<std::string> strings(const rapidjson::Value& array) {
    std::set<std::string> values;
    for (const auto& value : array.GetArray()) values.insert(value.GetString());
    return values;
  }

  static std::string string_of(const rapidjson::Value& object, const char* name) {
    return object.HasMember(name) && object[name].IsString() ? object[name].GetString() : "";
  }

  rapidjson::Document document_;
};

TEST_F(CatalogOpenApi, EveryPayoutMethodHasItsAccountSchema) {
  int methods = 0;
  for (const auto& method : payment_methods()) {
    if (method.direction != Direction::payout) continue;
    ++methods;
    const auto name = fiat_account_schema_name(method.country, method.type);
    const auto* account = schema(name);
    ASSERT_NE(account, nullptr) << name;
    EXPECT_EQ(string_of(*account, "type"), "object") << name;
    ASSERT_TRUE((*account)["additionalProperties"].IsBool());
    EXPECT_FALSE((*account)["additionalProperties"].GetBool()) << name;
    std::set<std::string> expected_required{"type"};
    for (const auto& field : method.fields) expected_required.insert(std::string(field.name));
    EXPECT_EQ(strings((*account)["required"]), expected_required) << name;
    const auto& properties = (*account)["properties"];
    EXPECT_EQ(properties.MemberCount(), method.fields.size() + 1) << name;
    EXPECT_EQ(string_of(properties["type"], "const"), method.type) << name;
    for (const auto& field : method.fields) {
      const auto key = std::string(field.name);
      ASSERT_TRUE(properties.HasMember(key.c_str())) << name << " " << key;
      const auto& property = properties[key.c_str()];
      EXPECT_EQ(string_of(property, "type"), "string");
      EXPECT_EQ(string_of(property, "pattern"), field.pattern) << name << " " << key;
      EXPECT_EQ(string_of(property, "description"), field.description) << name << " " << key;
      EXPECT_EQ(std::string(property["examples"][0].GetString()), field.example);
    }
  }
  EXPECT_EQ(methods, 14);
}

TEST_F(CatalogOpenApi, BeneficiaryAccountMapsEveryTypeToItsSchemas) {
  const auto* root = schema("FiatBeneficiaryAccount");
  ASSERT_NE(root, nullptr);
  const auto& discriminator = (*root)["discriminator"];
  EXPECT_EQ(string_of(discriminator, "propertyName"), "type");
  const auto& mapping = discriminator["mapping"];
  std::set<std::string> one_of;
  for (const auto& item : (*root)["oneOf"].GetArray()) one_of.insert(item["$ref"].GetString());
  std::set<std::string> reached;  // every per-method schema reachable through the mapping
  std::set<std::string> payout_types;
  for (const auto& method : payment_methods()) {
    if (method.direction != Direction::payout) continue;
    const auto type = std::string(method.type);
    payout_types.insert(type);
    ASSERT_TRUE(mapping.HasMember(type.c_str())) << type;
    const std::string target = mapping[type.c_str()].GetString();
    EXPECT_TRUE(one_of.contains(target)) << target;
    const auto name = target.substr(target.rfind('/') + 1);
    const auto* mapped = schema(name);
    ASSERT_NE(mapped, nullptr) << target;
    // Client generators attach the discriminator's value only to an object schema or an allOf
    // (openapi-typescript warns on a bare anyOf).
    EXPECT_TRUE(string_of(*mapped, "type") == "object" || mapped->HasMember("allOf")) << target;
    if (mapped->HasMember("allOf")) {
      // A type of several countries: its `type` member, then any of the countries' accounts.
      const auto& parts = (*mapped)["allOf"];
      ASSERT_EQ(parts.Size(), 2u) << target;
      EXPECT_EQ(string_of(parts[0]["properties"]["type"], "const"), type) << target;
      EXPECT_EQ(strings(parts[0]["required"]), std::set<std::string>{"type"}) << target;
      for (const auto& item : parts[1]["anyOf"].GetArray()) {
        const std::string ref = item["$ref"].GetString();
        reached.insert(ref.substr(ref.rfind('/') + 1));
      }
    } else {
      reached.insert(name);
    }
  }
  EXPECT_EQ(mapping.MemberCount(), payout_types.size());
  EXPECT_EQ(one_of.size(), payout_types.size());
  for (const auto& method : payment_methods()) {
    if (method.direction != Direction::payout) continue;
    EXPECT_TRUE(reached.contains(fiat_account_schema_name(method.country, method.type)))
        << method.country << " " << method.type;
  }
}

TEST_F(CatalogOpenApi, EnumsAreTheTables) {
  std::set<std::string> types, countries, currency_codes, rate_codes;
  for (const auto& method : payment_methods()) types.insert(std::string(method.type));
  for (const auto& country : catalog_countries()) countries.insert(std::string(country.country));
  for (const auto& currency : currencies()) currency_codes.insert(std::string(currency.code));
  for (const auto& rate : reference_rates()) rate_codes.insert(std::string(rate.code));
  EXPECT_EQ(strings((*schema("PaymentMethodType"))["enum"]), types);
  EXPECT_EQ(strings((*schema("CatalogCountry"))["enum"]), countries);
  EXPECT_EQ(strings((*schema("CatalogCurrency"))["enum"]), currency_codes);
  EXPECT_EQ(strings((*schema("RateCode"))["enum"]), rate_codes);
}

// The examples of schemas/openapi/paths/catalog.json are hand-written: they must still be what
// the server answers.
TEST_F(CatalogOpenApi, HandWrittenExamplesAgreeWithTheTable) {
  const auto& methods_example = document_["paths"]["/v1/payment-methods"]["get"]["responses"]["200"]
                                         ["content"]["application/json"]["example"]["data"];
  ASSERT_GT(methods_example.Size(), 0u);
  for (const auto& item : methods_example.GetArray()) {
    const auto* method = find_payout_method(string_of(item, "country"), string_of(item, "type"));
    ASSERT_NE(method, nullptr);
    EXPECT_EQ(string_of(item, "currency"), method->currency);
    const auto& fields = item["required_fields"];
    ASSERT_EQ(fields.Size(), method->fields.size());
    for (std::size_t i = 0; i < method->fields.size(); ++i) {
      EXPECT_EQ(string_of(fields[i], "name"), method->fields[i].name);
      EXPECT_EQ(string_of(fields[i], "description"), method->fields[i].description);
      EXPECT_EQ(string_of(fields[i], "pattern"), method->fields[i].pattern);
    }
    EXPECT_EQ(json::serialize(item["example_account"]), example_account(*method).full_json());
  }
  const auto& countries_example = document_["paths"]["/v1/countries"]["get"]["responses"]["200"]
                                           ["content"]["application/json"]["example"]["data"];
  ASSERT_GT(countries_example.Size(), 0u);
  for (const auto& item : countries_example.GetArray()) {
    bool found = false;
    for (const auto& country : catalog_countries()) {
      if (country.country != string_of(item, "code")) continue;
      found = true;
      std::vector<std::string> payout(country.payout_methods.begin(), country.payout_methods.end());
      std::vector<std::string> listed;
      for (const auto& type : item["payout_methods"].GetArray()) listed.push_back(type.GetString());
      EXPECT_EQ(listed, payout);
      listed.clear();
      for (const auto& type : item["collection_methods"].GetArray()) {
        listed.push_back(type.GetString());
      }
      EXPECT_EQ(listed, std::vector<std::string>(country.collection_methods.begin(),
                                                 country.collection_methods.end()));
    }
    EXPECT_TRUE(found) << string_of(item, "code");
  }
  const auto& rate_example = document_["paths"]["/v1/rates"]["get"]["responses"]["200"]["content"]
                                      ["application/json"]["example"];
  const auto rate = reference_rate(string_of(rate_example, "from"), string_of(rate_example, "to"));
  ASSERT_TRUE(rate.has_value());
  EXPECT_EQ(string_of(rate_example, "rate"), format_decimal(rate->rate));
  EXPECT_EQ(string_of(rate_example, "inverse"), format_decimal(rate->inverse));
  EXPECT_EQ(string_of(rate_example, "as_of"), rate->as_of);
}

}  // namespace
}  // namespace payrail::model
