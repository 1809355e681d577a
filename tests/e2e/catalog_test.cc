// GET /v1/countries, GET /v1/payment-methods and GET /v1/rates over real HTTP against the real
// API binary: shapes, filters, bad parameters with their exact codes and params, scopes, and
// live mode with and without a configured rate source. One stack for the file.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "infra/adapters/catalog/countries.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/rates.h"
#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

class Catalog : public ApiSuite<Catalog> {
 protected:
  static HttpResult get(const std::string& path, const std::string& key = "") {
    return stack_->http().get(path, with_key(key.empty() ? organization_->test_key : key));
  }

  static std::string create_key(const std::string& scopes_json) {
    const auto response =
        stack_->http().post("/v1/api-keys", R"({"mode":"test","scopes":)" + scopes_json + "}",
                            with_key(organization_->test_key));
    if (response.status != 201) throw std::runtime_error("create key: " + response.body);
    return response.json()["key"].GetString();
  }

  static std::vector<std::string> strings(const rapidjson::Value& array) {
    std::vector<std::string> values;
    for (const auto& value : array.GetArray()) values.emplace_back(value.GetString());
    return values;
  }

  static void expect_single_page(const rapidjson::Document& json) {
    EXPECT_STREQ(json["object"].GetString(), "list");
    EXPECT_FALSE(json["has_more"].GetBool());
    EXPECT_TRUE(json["next_cursor"].IsNull());
  }
};

TEST_F(Catalog, CountriesListEveryCorridorCountryWithItsIsoName) {
  const auto response = get("/v1/countries");
  ASSERT_TRUE(has_status(response, 200)) << response.body;
  const auto json = response.json();
  expect_single_page(json);
  auto iso = infra::catalog::Countries::load();
  ASSERT_TRUE(iso.ok());
  const auto table = model::catalog_countries();
  ASSERT_EQ(json["data"].Size(), table.size());
  for (std::size_t i = 0; i < table.size(); ++i) {
    const auto& item = json["data"][static_cast<rapidjson::SizeType>(i)];
    EXPECT_EQ(item.MemberCount(), 6u);
    EXPECT_STREQ(item["object"].GetString(), "country");
    EXPECT_EQ(item["code"].GetString(), table[i].country);
    EXPECT_EQ(item["name"].GetString(), *(*iso)->name_of(table[i].country));
  }
  for (const auto& item : json["data"].GetArray()) {
    const std::string code = item["code"].GetString();
    if (code == "MX") {
      EXPECT_STREQ(item["name"].GetString(), "Mexico");
      EXPECT_EQ(strings(item["currencies"]), std::vector<std::string>{"MXN"});
      EXPECT_EQ(strings(item["payout_methods"]), std::vector<std::string>{"clabe"});
      EXPECT_TRUE(item["collection_methods"].Empty());
    }
    if (code == "CA") {
      EXPECT_EQ(strings(item["payout_methods"]), std::vector<std::string>{"bank_account"});
      EXPECT_EQ(strings(item["collection_methods"]),
                (std::vector<std::string>{"interac_etransfer", "eft"}));
    }
    if (code == "US") {
      EXPECT_EQ(strings(item["collection_methods"]), std::vector<std::string>{"ach"});
    }
  }
  EXPECT_TRUE(is_error(get("/v1/countries?limit=5"), 400, "bad_request", "limit"));
}

TEST_F(Catalog, PaymentMethodsCarryTheirRequiredFields) {
  const auto all = get("/v1/payment-methods");
  ASSERT_TRUE(has_status(all, 200)) << all.body;
  const auto json = all.json();
  expect_single_page(json);
  EXPECT_EQ(json["data"].Size(), model::payment_methods().size());

  const auto mexico = get("/v1/payment-methods?country=MX").json();
  ASSERT_EQ(mexico["data"].Size(), 1u);
  const auto& clabe = mexico["data"][0];
  EXPECT_STREQ(clabe["object"].GetString(), "payment_method");
  EXPECT_STREQ(clabe["country"].GetString(), "MX");
  EXPECT_STREQ(clabe["currency"].GetString(), "MXN");
  EXPECT_STREQ(clabe["direction"].GetString(), "payout");
  EXPECT_STREQ(clabe["type"].GetString(), "clabe");
  ASSERT_EQ(clabe["required_fields"].Size(), 1u);
  const auto& field = clabe["required_fields"][0];
  EXPECT_EQ(field.MemberCount(), 3u);
  EXPECT_STREQ(field["name"].GetString(), "clabe");
  EXPECT_STREQ(field["pattern"].GetString(), "^[0-9]{18}$");
  EXPECT_NE(std::string(field["description"].GetString()).find("check digit"), std::string::npos);
  EXPECT_STREQ(clabe["example_account"]["type"].GetString(), "clabe");
  EXPECT_STREQ(clabe["example_account"]["clabe"].GetString(), "032180000118359719");

  const auto brazil = get("/v1/payment-methods?country=BR&direction=payout").json();
  ASSERT_EQ(brazil["data"].Size(), 2u);
  std::vector<std::string> fields;
  for (const auto& item : brazil["data"][1]["required_fields"].GetArray()) {
    fields.emplace_back(item["name"].GetString());
  }
  EXPECT_EQ(fields,
            (std::vector<std::string>{"bank_code", "branch_number", "account_number", "tax_id"}));
}

TEST_F(Catalog, PaymentMethodFilters) {
  const auto collections = get("/v1/payment-methods?direction=collection").json();
  std::set<std::string> types;
  for (const auto& item : collections["data"].GetArray()) {
    types.insert(item["type"].GetString());
    EXPECT_STREQ(item["direction"].GetString(), "collection");
    EXPECT_TRUE(item["required_fields"].Empty());
    EXPECT_FALSE(item.HasMember("example_account"));
  }
  EXPECT_EQ(types, (std::set<std::string>{"interac_etransfer", "ach", "eft"}));
  const auto canada = get("/v1/payment-methods?direction=collection&country=CA").json();
  EXPECT_EQ(canada["data"].Size(), 2u);
  // A real country without methods: an empty list, not an error.
  const auto japan = get("/v1/payment-methods?country=JP");
  ASSERT_TRUE(has_status(japan, 200));
  EXPECT_TRUE(japan.json()["data"].Empty());
}

TEST_F(Catalog, PaymentMethodBadParameters) {
  EXPECT_TRUE(is_error(get("/v1/payment-methods?country=mx"), 400, "bad_request", "country"));
  EXPECT_TRUE(is_error(get("/v1/payment-methods?country=ZZ"), 400, "bad_request", "country"));
  EXPECT_TRUE(is_error(get("/v1/payment-methods?country="), 400, "bad_request", "country"));
  EXPECT_TRUE(
      is_error(get("/v1/payment-methods?direction=inbound"), 400, "bad_request", "direction"));
  EXPECT_TRUE(
      is_error(get("/v1/payment-methods?direction=Payout"), 400, "bad_request", "direction"));
  EXPECT_TRUE(is_error(get("/v1/payment-methods?type=clabe"), 400, "bad_request", "type"));
}

TEST_F(Catalog, RatesFromTheReferenceTable) {
  const auto response = get("/v1/rates?from=USDC&to=MXN");
  ASSERT_TRUE(has_status(response, 200)) << response.body;
  const auto json = response.json();
  EXPECT_EQ(json.MemberCount(), 6u);
  EXPECT_STREQ(json["object"].GetString(), "rate");
  EXPECT_STREQ(json["from"].GetString(), "USDC");
  EXPECT_STREQ(json["to"].GetString(), "MXN");
  EXPECT_STREQ(json["rate"].GetString(), "18.45");
  EXPECT_STREQ(json["inverse"].GetString(), "0.054200542005");
  EXPECT_EQ(json["as_of"].GetString(), model::kReferenceRatesAsOf);

  const auto eth = get("/v1/rates?to=ETH&from=EUR").json();
  EXPECT_STREQ(eth["rate"].GetString(), "0.000386666667");
  EXPECT_STREQ(eth["inverse"].GetString(), "2586.206896551724");
}

TEST_F(Catalog, RateBadParameters) {
  EXPECT_TRUE(is_error(get("/v1/rates"), 400, "bad_request", "from"));
  EXPECT_TRUE(is_error(get("/v1/rates?to=MXN"), 400, "bad_request", "from"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC"), 400, "bad_request", "to"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=&to=MXN"), 400, "bad_request", "from"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC&to=MXN&at=now"), 400, "bad_request", "at"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=JPY&to=MXN"), 422, "unsupported_country", "from"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC&to=mxn"), 422, "unsupported_country", "to"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC&to=BTC"), 422, "unsupported_country", "to"));
}

TEST_F(Catalog, Scopes) {
  const auto all_but_organization_read = create_key(
      R"(["payouts:write","payouts:read","balances:read","webhooks:write","webhooks:read",)"
      R"("organization:write","collections:write","collections:read"])");
  const auto all_but_balances_read = create_key(
      R"(["payouts:write","payouts:read","organization:read","webhooks:write","webhooks:read",)"
      R"("organization:write","collections:write","collections:read"])");
  for (const auto* path : {"/v1/countries", "/v1/payment-methods"}) {
    EXPECT_TRUE(is_error(get(path, all_but_organization_read), 403, "scope_insufficient")) << path;
    EXPECT_TRUE(has_status(get(path, create_key(R"(["organization:read"])")), 200)) << path;
  }
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC&to=MXN", all_but_balances_read), 403,
                       "scope_insufficient"));
  EXPECT_TRUE(
      has_status(get("/v1/rates?from=USDC&to=MXN", create_key(R"(["balances:read"])")), 200));
  EXPECT_TRUE(is_error(stack_->http().get("/v1/rates?from=USDC&to=MXN"), 401, "api_key_missing"));
}

TEST_F(Catalog, LiveRatesNeedAConfiguredSource) {
  stack_->verify_business(*organization_);
  const auto created = stack_->http().post("/v1/api-keys", R"({"mode":"live"})",
                                           {{"Authorization", "Bearer " + organization_->session},
                                            {"Payrail-Organization", organization_->id}});
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string live_key = created.json()["key"].GetString();

  // The stack's API runs without PAYRAIL_RATE_SOURCE.
  EXPECT_TRUE(
      is_error(get("/v1/rates?from=USDC&to=MXN", live_key), 503, "provider_unavailable", ""));
  // Parameters are checked first, so a bad request is a 4xx whatever the mode.
  EXPECT_TRUE(is_error(get("/v1/rates?from=USDC", live_key), 400, "bad_request", "to"));
  EXPECT_TRUE(is_error(get("/v1/rates?from=JPY&to=MXN", live_key), 422, "unsupported_country"));
  // The catalog needs no source.
  EXPECT_TRUE(has_status(get("/v1/countries", live_key), 200));

  auto& api = stack_->process("api");
  api.set_env("PAYRAIL_RATE_SOURCE", "reference");
  stack_->start("api");
  const auto configured = get("/v1/rates?from=USDC&to=MXN", live_key);
  EXPECT_TRUE(has_status(configured, 200)) << configured.body;
  EXPECT_STREQ(configured.json()["rate"].GetString(), "18.45");
  api.set_env("PAYRAIL_RATE_SOURCE", "");
  stack_->start("api");
}

}  // namespace
}  // namespace payrail::testing
