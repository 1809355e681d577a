// The corridor table (schemas/model/fiat_payouts/corridors.h): consistent with itself, with the ISO
// data of the system, with the rates table and with the contract's corridor list; and the
// validation entry point fiat payouts use: every corridor's example accepted, each checked field
// with one digit changed refused with the field's param, every error code and param exact, masking.
#include "schemas/model/fiat_payouts/corridors.h"

#include <gtest/gtest.h>

#include <regex>
#include <set>
#include <string>

#include "infra/adapters/catalog/countries.h"
#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str(), text.size());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

Result<ValidatedAccount> validate(std::string_view country, std::string_view currency,
                                  const std::string& account_json) {
  const auto account = parse(account_json);
  return validate_beneficiary_account(country, currency, account);
}

void expect_refused(const Result<ValidatedAccount>& result, std::string_view param,
                    const std::string& context = "") {
  ASSERT_FALSE(result.ok()) << context << " was accepted";
  EXPECT_EQ(result.error().code, ErrorCode::unsupported_country) << context;
  EXPECT_EQ(result.error().param.value_or(""), param) << context << ": " << result.error().message;
}

// The example account of a method with one member replaced (or removed when value is empty).
std::string account_with(const PaymentMethod& method, std::string_view name,
                         const std::optional<std::string>& value) {
  auto document = parse(example_account(method).full_json());
  auto& allocator = document.GetAllocator();
  document.RemoveMember(std::string(name).c_str());
  if (value) {
    document.AddMember(rapidjson::Value(std::string(name).c_str(), allocator),
                       rapidjson::Value(value->c_str(), allocator), allocator);
  }
  return json::serialize(document);
}

// The example with its last digit changed (a check digit, or the digit a check covers).
std::string last_digit_changed(std::string value) {
  for (auto it = value.rbegin(); it != value.rend(); ++it) {
    if (*it >= '0' && *it <= '9') {
      *it = *it == '9' ? '0' : static_cast<char>(*it + 1);
      break;
    }
  }
  return value;
}

TEST(CorridorTable, HasTheContractsThirteenCorridorsAndThreeCollectionMethods) {
  // docs/api.md and docs/catalog.md: the corridors of the v1 contract.
  const std::set<std::pair<std::string, std::string>> contract{
      {"MX", "MXN"}, {"BR", "BRL"}, {"CO", "COP"}, {"AR", "ARS"}, {"NG", "NGN"},
      {"PH", "PHP"}, {"IN", "INR"}, {"DE", "EUR"}, {"FR", "EUR"}, {"ES", "EUR"},
      {"GB", "GBP"}, {"CA", "CAD"}, {"US", "USD"}};
  std::set<std::pair<std::string, std::string>> payout_corridors;
  std::set<std::string> collection_methods;
  for (const auto& method : payment_methods()) {
    if (method.direction == Direction::payout) {
      payout_corridors.emplace(method.country, method.currency);
    } else {
      collection_methods.emplace(method.type);
      EXPECT_TRUE(method.fields.empty()) << method.type;
    }
  }
  EXPECT_EQ(payout_corridors, contract);
  EXPECT_EQ(collection_methods, (std::set<std::string>{"interac_etransfer", "ach", "eft"}));
  EXPECT_EQ(find_collection_method("interac_etransfer")->currency, "CAD");
  EXPECT_EQ(find_collection_method("eft")->currency, "CAD");
  EXPECT_EQ(find_collection_method("ach")->currency, "USD");
}

TEST(CorridorTable, RowsAreConsistent) {
  std::set<std::pair<std::string_view, std::string_view>> keys;
  for (const auto& method : payment_methods()) {
    const auto where = std::string(method.country) + " " + std::string(method.type);
    EXPECT_TRUE(std::regex_match(std::string(method.country), std::regex("[A-Z]{2}"))) << where;
    EXPECT_TRUE(minor_units(method.currency).has_value()) << where;
    EXPECT_TRUE(std::regex_match(std::string(method.type), std::regex("[a-z_]+"))) << where;
    EXPECT_TRUE(keys.emplace(method.country, method.type).second) << where << " twice";
    EXPECT_GT(method.typical_settlement_minutes, 0) << where;
    EXPECT_FALSE(method.summary.empty()) << where;
    if (method.direction == Direction::payout) {
      EXPECT_FALSE(method.fields.empty()) << where;
      EXPECT_EQ(payout_currency(method.country), method.currency) << "one currency per country";
    }
    std::set<std::string_view> names;
    for (const auto& field : method.fields) {
      EXPECT_TRUE(names.insert(field.name).second) << where << " " << field.name;
      EXPECT_NE(field.name, "type") << where;
      EXPECT_FALSE(field.description.empty()) << where << " " << field.name;
      EXPECT_TRUE(field.pattern.starts_with("^") && field.pattern.ends_with("$"))
          << where << " " << field.name << ": patterns are anchored";
      // Dependent checks read a field listed before them.
      if (field.check == FieldCheck::nuban) {
        EXPECT_TRUE(names.contains("bank_code")) << where;
      }
      if (field.check == FieldCheck::co_document) {
        EXPECT_TRUE(names.contains("document_type")) << where;
      }
    }
  }
}

TEST(CorridorTable, EveryCountryIsInTheSystemsIsoDataAndEveryCurrencyHasARate) {
  auto iso = infra::catalog::Countries::load();
  ASSERT_TRUE(iso.ok()) << iso.error().message;
  for (const auto& country : catalog_countries()) {
    EXPECT_TRUE((*iso)->name_of(country.country).has_value()) << country.country;
  }
  for (const auto& currency : currencies()) {
    EXPECT_TRUE(has_reference_rate(currency.code)) << currency.code;
    EXPECT_EQ(currency.minor_units, 2) << currency.code << ": ISO 4217 gives 2 for all of these";
  }
}

TEST(CorridorTable, AccountIdentifiersAreFlagged) {
  const std::set<std::string_view> identifiers{
      "clabe", "pix_key", "account_number", "tax_id", "cbu", "cuit", "iban", "document_number"};
  for (const auto& method : payment_methods()) {
    for (const auto& field : method.fields) {
      EXPECT_EQ(field.identifier, identifiers.contains(field.name))
          << method.country << " " << method.type << " " << field.name;
    }
  }
}

TEST(CorridorTable, CountriesListTheirMethods) {
  const auto countries = catalog_countries();
  ASSERT_FALSE(countries.empty());
  for (std::size_t i = 1; i < countries.size(); ++i) {
    EXPECT_LT(countries[i - 1].country, countries[i].country) << "sorted, no repeats";
  }
  for (const auto& country : countries) {
    if (country.country == "CA") {
      EXPECT_EQ(country.currencies, (std::vector<std::string_view>{"CAD"}));
      EXPECT_EQ(country.payout_methods, (std::vector<std::string_view>{"bank_account"}));
      EXPECT_EQ(country.collection_methods,
                (std::vector<std::string_view>{"interac_etransfer", "eft"}));
    }
    if (country.country == "BR") {
      EXPECT_EQ(country.payout_methods, (std::vector<std::string_view>{"pix", "bank_account"}));
      EXPECT_TRUE(country.collection_methods.empty());
    }
  }
}

TEST(CorridorValidation, EveryCorridorAcceptsItsExampleAndMasksIdentifiers) {
  for (const auto& method : payment_methods()) {
    if (method.direction != Direction::payout) continue;
    const auto where = std::string(method.country) + " " + std::string(method.type);
    const auto example = example_account(method).full_json();
    auto validated = validate(method.country, method.currency, example);
    ASSERT_TRUE(validated.ok()) << where << ": " << validated.error().message;
    EXPECT_EQ(validated->method, &method);
    EXPECT_EQ(validated->full_json(), example) << where << ": values are kept as sent";
    const auto masked = validated->masked_json();
    for (const auto& value : validated->values) {
      if (value.field->identifier) {
        EXPECT_EQ(masked.find(value.value), std::string::npos) << where << " " << masked;
        EXPECT_NE(masked.find(mask_identifier(value.value)), std::string::npos) << masked;
      } else {
        EXPECT_NE(masked.find("\"" + value.value + "\""), std::string::npos) << masked;
      }
    }
    // The sealed form is itself a valid account: it validates again after unsealing.
    EXPECT_TRUE(validate(method.country, method.currency, validated->full_json()).ok());
  }
}

TEST(CorridorValidation, EveryCheckedFieldWithOneDigitChangedIsRefusedWithItsParam) {
  int checked_fields = 0;
  for (const auto& method : payment_methods()) {
    for (const auto& field : method.fields) {
      if (field.check == FieldCheck::pattern_only) continue;
      const auto changed = last_digit_changed(std::string(field.example));
      if (field.check == FieldCheck::pix_key) continue;  // an e-mail example: covered below
      ++checked_fields;
      const auto where = std::string(method.country) + " " + std::string(field.name);
      expect_refused(
          validate(method.country, method.currency, account_with(method, field.name, changed)),
          "beneficiary.account." + std::string(field.name), where);
    }
  }
  // clabe, tax_id, cbu, cuit, nuban, 3 IBANs, routing_number, document_number
  EXPECT_EQ(checked_fields, 10);
}

TEST(CorridorValidation, PixKeysOfEveryKind) {
  const auto* pix = find_payout_method("BR", "pix");
  ASSERT_NE(pix, nullptr);
  const auto check = [&](const std::string& key) {
    return validate("BR", "BRL", account_with(*pix, "pix_key", key));
  };
  for (const auto* key :
       {"39053344705", "16727230000197", "maria.silva@example.com", "+5561912345678",
        "+556132345678", "123e4567-e89b-42d3-a456-426614174000"}) {
    EXPECT_TRUE(check(key).ok()) << key;
  }
  for (const auto* key :
       {"39053344706", "16727230000198", "5561912345678", "+15551234567",
        "123E4567-E89B-42D3-A456-426614174000", "not a key", "", "maria@example"}) {
    expect_refused(check(key), "beneficiary.account.pix_key", key);
  }
  // The Central Bank's 77-character limit for e-mail keys.
  expect_refused(check(std::string(70, 'a') + "@example.com"), "beneficiary.account.pix_key");
}

TEST(CorridorValidation, FormatsOfFieldsWithoutCheckDigits) {
  struct Case {
    std::string_view country, type, field, value;
    bool valid;
  };
  const Case cases[] = {
      {"IN", "bank_account", "ifsc", "SBIN0000300", true},
      {"IN", "bank_account", "ifsc", "SBIN1000300", false},  // fifth character must be 0
      {"IN", "bank_account", "ifsc", "sbin0000300", false},
      {"GB", "bank_account", "sort_code", "60-16-13", false},
      {"GB", "bank_account", "account_number", "3192681", false},
      {"CA", "bank_account", "institution_number", "0010", false},
      {"CA", "bank_account", "transit_number", "0001", false},
      {"CA", "bank_account", "account_number", "123456", false},
      {"CA", "bank_account", "account_number", "123456789012", true},
      {"CO", "bank_account", "account_type", "current", false},
      {"PH", "bank_account", "bank_code", "BNORUSMM", false},  // not a Philippine BIC
      {"PH", "bank_account", "bank_code", "BNORPHMMXXX", true},
      {"PH", "bank_account", "account_number", "1234567", false},
      {"BR", "bank_account", "account_number", "1234567X", true},
      {"US", "bank_account", "account_type", "money_market", false},
      {"NG", "nuban", "bank_code", "58", false},
  };
  for (const auto& c : cases) {
    const auto* method = find_payout_method(c.country, c.type);
    ASSERT_NE(method, nullptr) << c.country << " " << c.type;
    const auto result =
        validate(c.country, method->currency, account_with(*method, c.field, std::string(c.value)));
    if (c.valid) {
      EXPECT_TRUE(result.ok()) << c.country << " " << c.field << " " << c.value;
    } else {
      expect_refused(result, "beneficiary.account." + std::string(c.field),
                     std::string(c.country) + " " + std::string(c.value));
    }
  }
}

TEST(CorridorValidation, ColombianDocumentsByType) {
  const auto* method = find_payout_method("CO", "bank_account");
  ASSERT_NE(method, nullptr);
  const auto with_document = [&](const std::string& type, const std::string& number) {
    auto document = parse(account_with(*method, "document_type", type));
    document["document_number"].SetString(number.c_str(), document.GetAllocator());
    return validate("CO", "COP", json::serialize(document));
  };
  EXPECT_TRUE(with_document("CC", "1020304050").ok());
  EXPECT_TRUE(with_document("NIT", "8001972684").ok());
  EXPECT_TRUE(with_document("PP", "AB123456").ok());
  const std::string param = "beneficiary.account.document_number";
  expect_refused(with_document("NIT", "8001972685"), param, "NIT check digit");
  expect_refused(with_document("NIT", "800197268"), param, "NIT without check digit");
  expect_refused(with_document("CC", "AB123456"), param, "CC is numeric");
  expect_refused(with_document("CC", "12345678901"), param, "CC at most 10 digits");
}

TEST(CorridorValidation, CountryAndCurrency) {
  const auto clabe = example_account(*find_payout_method("MX", "clabe")).full_json();
  expect_refused(validate("JP", "JPY", clabe), "country");
  expect_refused(validate("", "MXN", clabe), "country");
  expect_refused(validate("mx", "MXN", clabe), "country");
  expect_refused(validate("MX", "USD", clabe), "currency");
  expect_refused(validate("MX", "", clabe), "currency");
  // Countries differ within a currency: a Spanish IBAN is not a German one.
  expect_refused(
      validate("DE", "EUR", example_account(*find_payout_method("ES", "iban")).full_json()),
      "beneficiary.account.iban");
}

TEST(CorridorValidation, TypeMembersAndValueKinds) {
  const std::string param = "beneficiary.account";
  expect_refused(validate("MX", "MXN", R"("032180000118359719")"), param);
  expect_refused(validate("MX", "MXN", R"({"clabe": "032180000118359719"})"), param + ".type");
  expect_refused(validate("MX", "MXN", R"({"type": 1, "clabe": "032180000118359719"})"),
                 param + ".type");
  expect_refused(validate("MX", "MXN", R"({"type": "iban", "clabe": "032180000118359719"})"),
                 param + ".type");
  expect_refused(validate("MX", "MXN", R"({"type": "CLABE", "clabe": "032180000118359719"})"),
                 param + ".type");
  expect_refused(validate("MX", "MXN", R"({"type": "clabe"})"), param + ".clabe");
  expect_refused(validate("MX", "MXN", R"({"type": "clabe", "clabe": 32180000118359719})"),
                 param + ".clabe");
  expect_refused(validate("MX", "MXN", R"({"type": "clabe", "clabe": null})"), param + ".clabe");
  expect_refused(
      validate("MX", "MXN", R"({"type": "clabe", "clabe": "032180000118359719", "bank": "x"})"),
      param + ".bank");
  expect_refused(validate("MX", "MXN",
                          R"({"type": "clabe", "clabe": "032180000118359719",)"
                          R"( "clabe": "002010077777777771"})"),
                 param + ".clabe");
  expect_refused(validate("MX", "MXN", R"({"type": "clabe", "clabe": " 032180000118359719"})"),
                 param + ".clabe");
  expect_refused(
      validate("MX", "MXN", R"({"type": "clabe", "clabe": ")" + std::string(5000, '1') + "\"}"),
      param + ".clabe");
  // Another prefix for another caller.
  const auto account = parse(R"({"type": "clabe"})");
  const auto refused = validate_beneficiary_account("MX", "MXN", account, "account");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().param, "account.clabe");
}

TEST(CorridorValidation, MessagesNeverRepeatTheValue) {
  const auto* method = find_payout_method("MX", "clabe");
  const std::string wrong = "032180000118359718";
  const auto refused = validate("MX", "MXN", account_with(*method, "clabe", wrong));
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().message.find(wrong), std::string::npos) << refused.error().message;
  EXPECT_EQ(refused.error().message.find("5971"), std::string::npos) << refused.error().message;
}

TEST(CorridorMasking, ShowsTheLastFourOnly) {
  EXPECT_EQ(mask_identifier("032180000118359719"), "••••9719");
  EXPECT_EQ(mask_identifier("maria.silva@example.com"), "••••.com");
  EXPECT_EQ(mask_identifier("12345"), "••••2345");
  EXPECT_EQ(mask_identifier("1234"), "••••");
  EXPECT_EQ(mask_identifier(""), "••••");
  const auto account = example_account(*find_payout_method("US", "bank_account"));
  EXPECT_EQ(account.masked_json(),
            R"({"type":"bank_account","routing_number":"021000021","account_number":"••••6789",)"
            R"("account_type":"checking"})");
}

TEST(CorridorCollections, MethodLookupAndCurrency) {
  const auto* interac = find_collection_method("interac_etransfer");
  ASSERT_NE(interac, nullptr);
  EXPECT_EQ(interac->country, "CA");
  EXPECT_TRUE(collection_accepts_currency(*interac, "CAD"));
  EXPECT_FALSE(collection_accepts_currency(*interac, "USD"));
  EXPECT_FALSE(collection_accepts_currency(*interac, "cad"));
  EXPECT_TRUE(collection_accepts_currency(*find_collection_method("ach"), "USD"));
  EXPECT_FALSE(collection_accepts_currency(*find_collection_method("ach"), "CAD"));
  EXPECT_EQ(find_collection_method("wire"), nullptr);
  EXPECT_EQ(find_collection_method("clabe"), nullptr) << "a payout method is not a collection";
  EXPECT_EQ(find_collection_method(""), nullptr);
  // A payout method is not a collection method even when the table holds it.
  EXPECT_FALSE(collection_accepts_currency(*find_payout_method("US", "bank_account"), "USD"));
}

TEST(CorridorLookups, PayoutMethodsAndDirections) {
  EXPECT_EQ(payout_currency("MX"), "MXN");
  EXPECT_EQ(payout_currency("JP"), std::nullopt);
  EXPECT_EQ(payout_methods("BR").size(), 2u);
  EXPECT_TRUE(payout_methods("XX").empty());
  EXPECT_EQ(find_payout_method("CA", "interac_etransfer"), nullptr);
  EXPECT_EQ(minor_units("MXN"), 2);
  EXPECT_EQ(minor_units("USDC"), std::nullopt);
  EXPECT_EQ(parse_direction("payout"), Direction::payout);
  EXPECT_EQ(parse_direction("collection"), Direction::collection);
  EXPECT_EQ(parse_direction("Payout"), std::nullopt);
  EXPECT_EQ(direction_name(Direction::collection), "collection");
}

}  // namespace
}  // namespace payrail::model
