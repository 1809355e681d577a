// The per-organization rate limit holds across API processes: two payrail-api processes (each
// on its own port) share one bucket in PostgreSQL, so hammering both accepts no more than one
// bucket allows (burst + rate * elapsed + 2 leases), not twice that. The figures are printed.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <thread>

#include "tests/support/metrics.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr int kPerSecond = 20;
constexpr int kBurst = 40;
constexpr int kLeaseTokens = 2;  // the default: a tenth of a second's worth
constexpr int kProcesses = 2;
constexpr int kClientsPerProcess = 2;
constexpr auto kDuration = std::chrono::seconds(3);

class SharedRateLimit : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {},
                            .env = {{"PAYRAIL_RATE_LIMIT_PER_SECOND", std::to_string(kPerSecond)},
                                    {"PAYRAIL_RATE_LIMIT_BURST", std::to_string(kBurst)}},
                            .processes = {{"api", kProcesses}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  static TestStack* stack_;
};
TestStack* SharedRateLimit::stack_ = nullptr;

TEST_F(SharedRateLimit, TwoApiProcessesDoNotMultiplyTheLimit) {
  const auto organization = stack_->create_organization();
  const auto names = stack_->process_names("api");
  ASSERT_EQ(names.size(), static_cast<std::size_t>(kProcesses));
  std::map<std::string, std::atomic<int>> accepted;
  std::map<std::string, std::atomic<int>> refused;
  for (const auto& name : names) {
    accepted[name] = 0;
    refused[name] = 0;
  }
  std::atomic<int> unexpected{0};
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> clients;
  for (const auto& name : names) {
    for (int i = 0; i < kClientsPerProcess; ++i) {
      clients.emplace_back([&, name] {
        const HttpClient client(stack_->api_process_url(name));
        while (std::chrono::steady_clock::now() - started < kDuration) {
          const auto status =
              client.get("/v1/organization", with_key(organization.test_key)).status;
          if (status == 200) {
            ++accepted[name];
          } else if (status == 429) {
            ++refused[name];
          } else {
            ++unexpected;
          }
        }
      });
    }
  }
  for (auto& client : clients) client.join();
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  int total = 0;
  int offered = 0;
  for (const auto& name : names) {
    total += accepted[name];
    offered += accepted[name] + refused[name];
    std::printf("%s: %d accepted, %d refused\n", name.c_str(), accepted[name].load(),
                refused[name].load());
  }
  const double bound = kBurst + kPerSecond * elapsed + kProcesses * kLeaseTokens;
  const double per_process_ceiling = kProcesses * (kBurst + kPerSecond * elapsed);
  std::printf(
      "offered %d requests in %.2f s to %d API processes: %d accepted (%.1f/s); the shared bound "
      "is %.0f, separate per-process limits would have allowed %.0f\n",
      offered, elapsed, kProcesses, total, total / elapsed, bound, per_process_ceiling);
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_LE(total, bound);
  // The load was well beyond the limit, both processes served, and the shared bucket was used
  // rather than starved.
  EXPECT_GT(offered, 2 * per_process_ceiling);
  for (const auto& name : names) EXPECT_GT(accepted[name].load(), 0) << name;
  EXPECT_GE(total, kBurst + kPerSecond * (elapsed - 1));
  // The metrics of both processes agree with what the clients saw.
  double allowed_metric = 0;
  for (const auto& name : names) {
    allowed_metric += Scrape::from(stack_->metrics_url(name))
                          .sum("payrail_rate_limit_decisions_total", {{"decision", "allowed"}});
  }
  EXPECT_GE(allowed_metric, total);  // plus the organization's creation and key requests
  EXPECT_LE(allowed_metric, total + 2);
}

}  // namespace
}  // namespace payrail::testing
