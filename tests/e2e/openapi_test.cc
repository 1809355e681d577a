// GET /v1/openapi.json serves exactly the description assembled from schemas/openapi/, without
// authentication, and the running server answers the way that description says: unauthenticated
// calls get a documented status, and authenticated reads return the members their documented
// schemas require.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

#include "schemas/model/contract/contracts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class OpenApiEndpoint : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {}}); }
  static void TearDownTestSuite() {
    delete stack_;
    stack_ = nullptr;
  }

  static rapidjson::Document served_document() {
    const auto response = stack_->http().get("/v1/openapi.json");
    EXPECT_EQ(response.status, 200);
    auto document = response.json();
    EXPECT_FALSE(document.HasParseError());
    EXPECT_TRUE(document.IsObject());
    return document;
  }

  // "#/components/schemas/Payout" -> the schema object (nullptr when it does not resolve).
  static const rapidjson::Value* resolve(const rapidjson::Value& root,
                                         const rapidjson::Value& node) {
    if (!node.IsObject() || !node.HasMember("$ref")) return &node;
    std::string pointer = node["$ref"].GetString();
    if (pointer.rfind("#/", 0) != 0) return nullptr;
    const rapidjson::Value* current = &root;
    std::size_t start = 2;
    while (current != nullptr && start <= pointer.size()) {
      const auto end = std::min(pointer.find('/', start), pointer.size());
      const auto name = pointer.substr(start, end - start);
      current = current->IsObject() && current->HasMember(name.c_str()) ? &(*current)[name.c_str()]
                                                                        : nullptr;
      start = end + 1;
    }
    return current;
  }

  // Names a schema requires, including those of its allOf parts.
  static std::vector<std::string> required_members(const rapidjson::Value& root,
                                                   const rapidjson::Value& schema_node) {
    std::vector<std::string> names;
    const auto* schema = resolve(root, schema_node);
    if (schema == nullptr || !schema->IsObject()) return names;
    if (schema->HasMember("required")) {
      for (const auto& name : (*schema)["required"].GetArray())
        names.emplace_back(name.GetString());
    }
    if (schema->HasMember("allOf")) {
      for (const auto& part : (*schema)["allOf"].GetArray()) {
        for (auto& name : required_members(root, part)) names.push_back(std::move(name));
      }
    }
    return names;
  }

  static void expect_members(const rapidjson::Value& root, const rapidjson::Value& schema,
                             const rapidjson::Value& value, const std::string& where) {
    ASSERT_TRUE(value.IsObject()) << where;
    for (const auto& name : required_members(root, schema)) {
      EXPECT_TRUE(value.HasMember(name.c_str())) << where << " lacks required member " << name;
    }
  }

  // "?name=value&..." for the operation's required query parameters, each at its documented
  // example ("" when it has none).
  static std::string required_query(const rapidjson::Value& root,
                                    const rapidjson::Value& operation) {
    std::string query;
    if (!operation.HasMember("parameters")) return query;
    for (const auto& node : operation["parameters"].GetArray()) {
      const auto* parameter = resolve(root, node);
      if (parameter == nullptr || std::string((*parameter)["in"].GetString()) != "query" ||
          !parameter->HasMember("required") || !(*parameter)["required"].GetBool()) {
        continue;
      }
      EXPECT_TRUE(parameter->HasMember("example")) << (*parameter)["name"].GetString();
      if (!parameter->HasMember("example")) continue;
      query += (query.empty() ? "?" : "&") + std::string((*parameter)["name"].GetString()) + "=" +
               (*parameter)["example"].GetString();
    }
    return query;
  }

  static TestStack* stack_;
};
TestStack* OpenApiEndpoint::stack_ = nullptr;

TEST_F(OpenApiEndpoint, ServesExactlyTheRepositoryDocumentWithoutAuthentication) {
  const auto response = stack_->http().get("/v1/openapi.json");
  ASSERT_EQ(response.status, 200);
  EXPECT_EQ(response.body, std::string(model::openapi_document()));
  EXPECT_EQ(response.header("content-type").rfind("application/json", 0), 0u)
      << response.header("content-type");
  EXPECT_EQ(response.header("request-id").rfind("req_", 0), 0u);
  // Open routes are not rate-limited, so they carry no RateLimit headers.
  EXPECT_EQ(response.header("ratelimit-limit"), "");
  auto document = response.json();
  ASSERT_FALSE(document.HasParseError());
  EXPECT_STREQ(document["openapi"].GetString(), "3.1.0");
}

TEST_F(OpenApiEndpoint, CredentialsAreNeitherNeededNorChecked) {
  const std::string expected(model::openapi_document());
  for (const Headers& headers :
       {Headers{{"X-API-Key", "ck_test_not-a-real-key"}}, Headers{{"Authorization", "Basic abc"}},
        Headers{{"Authorization", "Bearer not-a-jwt"}}}) {
    const auto response = stack_->http().get("/v1/openapi.json", headers);
    EXPECT_EQ(response.status, 200) << headers.front().first;
    EXPECT_EQ(response.body, expected) << headers.front().first;
  }
}

TEST_F(OpenApiEndpoint, OtherMethodsAre405) {
  const auto response = stack_->http().post("/v1/openapi.json", "{}");
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(response.error_code(), "method_not_allowed");
  EXPECT_EQ(response.header("allow"), "GET");
}

// Every documented operation, called without credentials, answers with a status its
// description lists (401 for the protected ones, 2xx for the open ones).
TEST_F(OpenApiEndpoint, UnauthenticatedCallsGetDocumentedStatuses) {
  const auto document = served_document();
  ASSERT_TRUE(document.IsObject());
  int checked = 0;
  for (auto path = document["paths"].MemberBegin(); path != document["paths"].MemberEnd(); ++path) {
    std::string concrete = path->name.GetString();
    if (const auto open = concrete.find("{id}"); open != std::string::npos) {
      concrete.replace(open, 4, "po_000000000000000000000000");
    }
    for (auto method = path->value.MemberBegin(); method != path->value.MemberEnd(); ++method) {
      std::string verb = method->name.GetString();
      if (verb == "parameters") continue;
      for (auto& c : verb) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      const auto response = stack_->http().request(verb, concrete);
      const auto status = std::to_string(response.status);
      const auto& operation = method->value;
      EXPECT_TRUE(operation["responses"].HasMember(status.c_str()))
          << verb << " " << path->name.GetString() << " answered " << status
          << ", which its description does not list";
      if (operation["security"].Empty()) {
        EXPECT_EQ(response.status / 100, 2) << verb << " " << path->name.GetString();
      } else {
        EXPECT_EQ(response.status, 401) << verb << " " << path->name.GetString();
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 0);
}

// Every documented API-key GET without path parameters, called with a fresh organization's
// test key (and the documented example of each required query parameter), answers 200 with the
// members its documented schema requires (list items included).
TEST_F(OpenApiEndpoint, AuthenticatedReadsReturnTheDocumentedMembers) {
  const auto organization = stack_->create_organization();
  const auto document = served_document();
  ASSERT_TRUE(document.IsObject());
  int checked = 0;
  for (auto path = document["paths"].MemberBegin(); path != document["paths"].MemberEnd(); ++path) {
    const std::string name = path->name.GetString();
    if (name.find('{') != std::string::npos || !path->value.HasMember("get")) continue;
    const auto& operation = path->value["get"];
    if (operation["security"].Empty()) continue;
    const auto response = stack_->http().get(name + required_query(document, operation),
                                             with_key(organization.test_key));
    ASSERT_EQ(response.status, 200) << name << ": " << response.body;
    const auto& schema = operation["responses"]["200"]["content"]["application/json"]["schema"];
    const auto body = response.json();
    expect_members(document, schema, body, "GET " + name);
    // A list: check its items against the item schema too.
    const auto* resolved = resolve(document, schema);
    ASSERT_NE(resolved, nullptr) << name;
    if (resolved->HasMember("properties") && (*resolved)["properties"].HasMember("data") &&
        body.HasMember("data")) {
      const auto& items = (*resolved)["properties"]["data"]["items"];
      for (const auto& item : body["data"].GetArray()) {
        expect_members(document, items, item, "an item of GET " + name);
      }
    }
    ++checked;
  }
  EXPECT_GE(checked, 5);  // organization, api-keys, payouts, balances, webhooks, events
}

}  // namespace
}  // namespace payrail::testing
