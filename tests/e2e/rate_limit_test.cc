// Per-organization-and-mode rate limiting (token bucket) on a stack configured for 5 requests/s
// with a burst of 10: 429 rate_limited with Retry-After, RateLimit-* headers on every answer, one
// bucket shared by all keys of an organization, other organizations and modes unaffected.
#include <gtest/gtest.h>

#include <thread>

#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr int kPerSecond = 5;
constexpr int kBurst = 10;
constexpr int kRequestsMax = 500;  // bound on draining loops

struct Drained {
  int allowed = 0;  // successes before the first 429
  HttpResult refused;
};

class RateLimit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {},
                            .env = {{"PAYRAIL_RATE_LIMIT_PER_SECOND", std::to_string(kPerSecond)},
                                    {"PAYRAIL_RATE_LIMIT_BURST", std::to_string(kBurst)}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  static const HttpClient& http() { return stack_->http(); }

  // Sends requests with `api_key` until the first 429.
  static Drained drain(const std::string& api_key) {
    Drained drained;
    for (int i = 0; i < kRequestsMax; ++i) {
      auto response = http().get("/v1/organization", with_key(api_key));
      if (response.status == 429) {
        drained.refused = std::move(response);
        return drained;
      }
      EXPECT_TRUE(has_status(response, 200));
      ++drained.allowed;
    }
    ADD_FAILURE() << "never rate limited";
    return drained;
  }

  // A second key of the organization, minted with the owner's session (its own bucket), so the
  // organization's bucket is untouched.
  static std::string second_key(const TestOrganization& organization, const std::string& mode) {
    const auto response = http().post(
        "/v1/api-keys", R"({"mode":")" + mode + R"("})",
        with_session(organization.session, {{"Payrail-Organization", organization.id}}));
    EXPECT_TRUE(has_status(response, 201));
    return response.json()["key"].GetString();
  }

  static TestStack* stack_;
};
TestStack* RateLimit::stack_ = nullptr;

TEST_F(RateLimit, BurstBeyondTheLimitIs429WithRetryAfter) {
  const auto organization = stack_->create_organization();
  const auto first = http().get("/v1/organization", with_key(organization.test_key));
  ASSERT_TRUE(has_status(first, 200));
  EXPECT_EQ(first.header("ratelimit-limit"), std::to_string(kPerSecond));
  EXPECT_EQ(first.header("ratelimit-remaining"), std::to_string(kBurst - 1));

  const auto drained = drain(organization.test_key);
  EXPECT_GE(drained.allowed, kBurst - 1);  // the whole burst was honoured (one token went first)
  const auto& refused = drained.refused;
  EXPECT_TRUE(is_error(refused, 429, "rate_limited", ""));
  EXPECT_EQ(refused.header("ratelimit-limit"), std::to_string(kPerSecond));
  EXPECT_EQ(refused.header("ratelimit-remaining"), "0");
  const auto retry_after = std::stoi(refused.header("retry-after"));
  EXPECT_GE(retry_after, 1);
  EXPECT_LE(retry_after, 60);

  // Waiting as told is enough.
  std::this_thread::sleep_for(std::chrono::seconds(retry_after));
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(organization.test_key)), 200));
}

TEST_F(RateLimit, AllKeysOfAnOrganizationShareOneBucket) {
  const auto organization = stack_->create_organization();
  const auto other_key = second_key(organization, "test");
  drain(organization.test_key);
  // A bucket of its own would start full (remaining 9); the shared one is empty.
  const auto response = http().get("/v1/organization", with_key(other_key));
  if (response.status == 200) {
    EXPECT_LE(std::stoi(response.header("ratelimit-remaining")), 1)
        << "the other key has a bucket of its own";
  } else {
    EXPECT_TRUE(is_error(response, 429, "rate_limited"));
  }
}

TEST_F(RateLimit, OtherOrganizationsAndModesAreUnaffected) {
  auto limited = stack_->create_organization();
  const auto bystander = stack_->create_organization();
  stack_->verify_business(limited);
  const auto live_key = second_key(limited, "live");
  drain(limited.test_key);

  const auto other_org = http().get("/v1/organization", with_key(bystander.test_key));
  EXPECT_TRUE(has_status(other_org, 200));
  EXPECT_EQ(other_org.header("ratelimit-remaining"), std::to_string(kBurst - 1));
  const auto other_mode = http().get("/v1/organization", with_key(live_key));
  EXPECT_TRUE(has_status(other_mode, 200));
  EXPECT_EQ(other_mode.header("ratelimit-remaining"), std::to_string(kBurst - 1));
}

TEST_F(RateLimit, RefusedCreatesCreateNothing) {
  const auto organization = stack_->create_organization();
  int created = 0;
  bool refused = false;
  for (int i = 0; i < kRequestsMax && !refused; ++i) {
    const auto response =
        http().post("/v1/api-keys", R"({"mode":"test"})", with_key(organization.test_key));
    if (response.status == 201) {
      ++created;
    } else {
      EXPECT_TRUE(is_error(response, 429, "rate_limited"));
      refused = true;
    }
  }
  ASSERT_TRUE(refused);
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM api_keys WHERE org_id = '" +
                                      organization.id + "'"),
            std::to_string(created + 1));
}

}  // namespace
}  // namespace payrail::testing
