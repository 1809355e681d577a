// Scopes: every endpoint's scope matches the contract's table, a key without the scope gets
// 403 scope_insufficient on every route that needs one, and a key holding just that scope gets
// through. Routes come from the server's own route table, so new endpoints are covered as they
// land; contract endpoints not built yet must answer 404.
#include <gtest/gtest.h>

#include <map>
#include <regex>
#include <set>

#include "api/handlers/handlers.h"
#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

const std::vector<std::string> kAllScopes{
    "payouts:write",      "payouts:read",      "balances:read",
    "webhooks:write",     "webhooks:read",     "organization:read",
    "organization:write", "collections:write", "collections:read"};

struct ContractRoute {
  std::string method;
  std::string path;
  std::string scope;
};

// docs/api.md "Endpoints".
const std::vector<ContractRoute> kContractRoutes{
    {"POST", "/v1/payouts", "payouts:write"},
    {"GET", "/v1/payouts", "payouts:read"},
    {"GET", "/v1/payouts/{id}", "payouts:read"},
    {"POST", "/v1/payouts/{id}/cancel", "payouts:write"},
    {"POST", "/v1/fiat-payouts", "payouts:write"},
    {"GET", "/v1/fiat-payouts", "payouts:read"},
    {"GET", "/v1/fiat-payouts/{id}", "payouts:read"},
    {"POST", "/v1/fiat-payouts/{id}/cancel", "payouts:write"},
    {"POST", "/v1/collections", "collections:write"},
    {"GET", "/v1/collections", "collections:read"},
    {"GET", "/v1/collections/{id}", "collections:read"},
    {"POST", "/v1/collections/{id}/cancel", "collections:write"},
    {"POST", "/v1/test-helpers/collections/{id}/receive", "collections:write"},
    {"POST", "/v1/test-helpers/collections/{id}/fail", "collections:write"},
    {"POST", "/v1/test-helpers/collections/{id}/expire", "collections:write"},
    {"GET", "/v1/balances", "balances:read"},
    {"GET", "/v1/rates", "balances:read"},
    {"GET", "/v1/countries", "organization:read"},
    {"GET", "/v1/payment-methods", "organization:read"},
    {"POST", "/v1/webhooks", "webhooks:write"},
    {"GET", "/v1/webhooks", "webhooks:read"},
    {"DELETE", "/v1/webhooks/{id}", "webhooks:write"},
    {"GET", "/v1/events", "webhooks:read"},
    {"POST", "/v1/events/{id}/redeliver", "webhooks:write"},
    {"POST", "/v1/api-keys", "organization:write"},
    {"GET", "/v1/api-keys", "organization:read"},
    {"DELETE", "/v1/api-keys/{id}", "organization:write"},
    {"GET", "/v1/organization", "organization:read"},
    {"POST", "/v1/kyb", "organization:write"},
    {"GET", "/v1/kyb", "organization:read"},
};

// Routes that also take a session check their scope in the handler (a session has no scopes),
// so the route table leaves the scope empty for them.
const std::map<std::pair<std::string, std::string>, std::string> kHandlerCheckedScopes{
    {{"POST", "/v1/api-keys"}, "organization:write"},
};

std::string concrete_path(const std::string& pattern) {
  static const std::regex parameter(R"(\{[^}]+\})");
  return std::regex_replace(pattern, parameter, "made_up_id_0123456789");
}

struct ScopedRoute {
  std::string method;
  std::string path;
  std::string scope;
};

// Every route an API key can call that needs a scope, from the server's route table.
std::vector<ScopedRoute> scoped_routes() {
  const auto router = api::build_router();
  std::vector<ScopedRoute> routes;
  for (const auto& route : router.routes()) {
    std::string scope = route.scope;
    const auto handler_checked = kHandlerCheckedScopes.find({route.method, route.pattern});
    if (handler_checked != kHandlerCheckedScopes.end()) scope = handler_checked->second;
    const bool takes_keys =
        route.access == api::Access::api_key || route.access == api::Access::api_key_or_session;
    if (scope.empty() || !takes_keys) continue;
    routes.push_back({route.method, concrete_path(route.pattern), scope});
  }
  return routes;
}

class Scopes : public ApiSuite<Scopes> {
 protected:
  static void SetUpTestSuite() {
    ApiSuite::SetUpTestSuite();
    without_ = new std::map<std::string, std::string>();
    only_ = new std::map<std::string, std::string>();
    for (const auto& scope : kAllScopes) {
      std::vector<std::string> others;
      for (const auto& other : kAllScopes) {
        if (other != scope) others.push_back(other);
      }
      (*without_)[scope] = create_key(others);
      (*only_)[scope] = create_key({scope});
    }
  }
  static void TearDownTestSuite() {
    delete only_;
    delete without_;
    ApiSuite::TearDownTestSuite();
  }

  static std::string create_key(const std::vector<std::string>& scopes) {
    std::string list;
    for (const auto& scope : scopes) list += (list.empty() ? "\"" : ",\"") + scope + "\"";
    const auto response =
        stack_->http().post("/v1/api-keys", R"({"mode":"test","scopes":[)" + list + "]}",
                            with_key(organization_->test_key));
    if (response.status != 201) throw std::runtime_error("create key: " + response.body);
    return response.json()["key"].GetString();
  }

  static HttpResult call(const ScopedRoute& route, const std::string& api_key) {
    const auto headers = with_key(api_key, {{"Content-Type", "application/json"}});
    const std::string body = route.method == "POST" ? "{}" : "";
    return stack_->http().request(route.method, route.path, body, headers);
  }

  static std::map<std::string, std::string>* without_;  // scope -> key with all but that scope
  static std::map<std::string, std::string>* only_;     // scope -> key with just that scope
};
std::map<std::string, std::string>* Scopes::without_ = nullptr;
std::map<std::string, std::string>* Scopes::only_ = nullptr;

TEST_F(Scopes, RouteTableMatchesTheContract) {
  const auto router = api::build_router();
  for (const auto& expected : kContractRoutes) {
    const auto match = router.match(expected.method, concrete_path(expected.path));
    if (match.route == nullptr) continue;  // not built yet: see the next test
    auto scope = match.route->scope;
    const auto handler_checked = kHandlerCheckedScopes.find({expected.method, expected.path});
    if (handler_checked != kHandlerCheckedScopes.end()) scope = handler_checked->second;
    EXPECT_EQ(scope, expected.scope) << expected.method << " " << expected.path;
  }
}

TEST_F(Scopes, ContractEndpointsNotBuiltYetAnswer404) {
  const auto router = api::build_router();
  for (const auto& expected : kContractRoutes) {
    const auto path = concrete_path(expected.path);
    const auto match = router.match(expected.method, path);
    if (match.route != nullptr || !match.allowed_methods.empty()) continue;
    const std::string body = expected.method == "POST" ? "{}" : "";
    EXPECT_TRUE(is_error(
        stack_->http().request(expected.method, path, body, with_key(organization_->test_key)), 404,
        "resource_missing"))
        << expected.method << " " << expected.path;
  }
}

TEST_F(Scopes, KeyWithoutTheRouteScopeIsRefused) {
  const auto routes = scoped_routes();
  ASSERT_GE(routes.size(), 8u);
  for (const auto& route : routes) {
    EXPECT_TRUE(is_error(call(route, without_->at(route.scope)), 403, "scope_insufficient"))
        << route.method << " " << route.path << " needs " << route.scope;
  }
}

TEST_F(Scopes, KeyWithJustTheRouteScopeGetsThrough) {
  for (const auto& route : scoped_routes()) {
    const auto response = call(route, only_->at(route.scope));
    EXPECT_NE(response.status, 403) << route.method << " " << route.path << ": " << response.body;
    EXPECT_NE(response.status, 401) << route.method << " " << route.path << ": " << response.body;
    EXPECT_EQ(response.header("request-id").rfind("req_", 0), 0u);
  }
}

TEST_F(Scopes, ReadScopeDoesNotGrantWriteAndViceVersa) {
  const auto& read_only = only_->at("organization:read");
  EXPECT_TRUE(has_status(stack_->http().get("/v1/api-keys", with_key(read_only)), 200));
  EXPECT_TRUE(
      is_error(stack_->http().post("/v1/api-keys", R"({"mode":"test"})", with_key(read_only)), 403,
               "scope_insufficient"));
  const auto& write_only = only_->at("organization:write");
  EXPECT_TRUE(is_error(stack_->http().get("/v1/api-keys", with_key(write_only)), 403,
                       "scope_insufficient"));
  EXPECT_TRUE(has_status(
      stack_->http().post("/v1/api-keys", R"({"mode":"test"})", with_key(write_only)), 201));
}

}  // namespace
}  // namespace payrail::testing
