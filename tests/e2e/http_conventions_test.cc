// HTTP conventions every endpoint shares: the error envelope, Request-Id, body limits, unknown
// routes and methods, content types, unknown fields, pagination parameters.
#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

class HttpConventions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {}}); }
  static void TearDownTestSuite() { delete stack_; }
  static TestStack* stack_;
};
TestStack* HttpConventions::stack_ = nullptr;

TEST_F(HttpConventions, HealthIsOpenAndReportsDependencies) {
  const auto response = stack_->http().get("/v1/health");
  EXPECT_EQ(response.status, 200);
  auto json = response.json();
  EXPECT_STREQ(json["postgres"].GetString(), "ok");
  EXPECT_STREQ(json["kafka"].GetString(), "ok");
  EXPECT_EQ(response.header("request-id").rfind("req_", 0), 0u);
}

TEST_F(HttpConventions, UnknownRouteIsResourceMissingWithEnvelope) {
  const auto response = stack_->http().get("/v1/nothing-here");
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.error_code(), "resource_missing");
  auto json = response.json();
  EXPECT_STREQ(json["error"]["type"].GetString(), "invalid_request_error");
  EXPECT_EQ(std::string(json["error"]["request_id"].GetString()), response.header("request-id"));
}

TEST_F(HttpConventions, WrongMethodIs405WithAllow) {
  const auto response = stack_->http().request("PUT", "/v1/api-keys");
  EXPECT_EQ(response.status, 405);
  EXPECT_EQ(response.error_code(), "method_not_allowed");
  EXPECT_NE(response.header("allow").find("GET"), std::string::npos);
}

}  // namespace
}  // namespace payrail::testing
