// Collections benchmark: the real stack (TestStack, every worker) and N test-mode collections,
// created first (not measured). Then client threads call POST /v1/test-helpers/collections/{id}/
// receive, each call's start time noted, paced at PAYRAIL_BENCH_RATE calls per second in all (0:
// as fast as the clients go). Prints receive-to-settled latency (the call's start to the
// collection's settled_at in PostgreSQL, same host clock), p50/p90/p99/max, and settlements per
// second. Asserts nothing.
//
// Configuration: PAYRAIL_BENCH_COLLECTIONS (default 300), PAYRAIL_BENCH_CLIENTS (default 4, one
// organization each: the rate limit is per organization), PAYRAIL_BENCH_RATE (default 0); plus
// the test harness variables, which tests/bench/collections/run sets.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/bench.h"
#include "tests/support/collections.h"
#include "tests/support/stack.h"

namespace {

using namespace payrail::testing;
using Clock = std::chrono::system_clock;

double micros_of(Clock::time_point point) {
  return static_cast<double>(
      std::chrono::duration_cast<std::chrono::microseconds>(point.time_since_epoch()).count());
}

// Retries a request while it is rate limited (429); returns the final answer.
template <class Call>
HttpResult patiently(Call&& call) {
  for (int tries = 0;; ++tries) {
    auto response = call();
    if (response.status != 429 || tries > 100) return response;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
}

struct Client {
  TestOrganization org;
  std::vector<std::string> ids;
  std::vector<double> started_us;
};

void create_all(const TestStack& stack, Client& client, int count) {
  static const char* const kMethods[][2] = {
      {"CAD", "interac_etransfer"}, {"USD", "ach"}, {"CAD", "eft"}};
  for (int i = 0; i < count; ++i) {
    const auto* method = kMethods[i % 3];
    const auto response = patiently([&] {
      return create_collection(stack.http(), client.org.test_key, "bench-" + std::to_string(i),
                               collection_body("100.00", method[0], method[1]));
    });
    if (response.status != 201) {
      std::fprintf(stderr, "create failed: %d %s\n", response.status, response.body.c_str());
      std::exit(1);
    }
    client.ids.push_back(response.json()["id"].GetString());
  }
}

void receive_all(const TestStack& stack, Client& client, std::chrono::microseconds interval) {
  auto next = std::chrono::steady_clock::now();
  for (const auto& id : client.ids) {
    if (interval.count() > 0) {
      std::this_thread::sleep_until(next);
      next += interval;
    }
    const auto started = Clock::now();
    const auto response = patiently(
        [&] { return collection_helper(stack.http(), client.org.test_key, id, "receive"); });
    if (response.status != 202) {
      std::fprintf(stderr, "receive failed: %d %s\n", response.status, response.body.c_str());
      std::exit(1);
    }
    client.started_us.push_back(micros_of(started));
  }
}

}  // namespace

int main() {
  const int total = env_int("PAYRAIL_BENCH_COLLECTIONS", 300);
  const int client_count = std::max(1, env_int("PAYRAIL_BENCH_CLIENTS", 4));
  const int rate = env_int("PAYRAIL_BENCH_RATE", 0);
  TestStack stack;
  std::vector<Client> clients(static_cast<std::size_t>(client_count));
  for (auto& client : clients) client.org = stack.create_organization();
  for (std::size_t c = 0; c < clients.size(); ++c) {
    create_all(stack, clients[c],
               total / client_count + (static_cast<int>(c) < total % client_count));
  }
  const auto interval = rate > 0 ? std::chrono::microseconds(1000000LL * client_count / rate)
                                 : std::chrono::microseconds(0);
  const auto started = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (auto& client : clients) {
    threads.emplace_back([&stack, &client, interval] { receive_all(stack, client, interval); });
  }
  for (auto& thread : threads) thread.join();
  std::string pending;
  const auto deadline = std::chrono::steady_clock::now() + kBenchDrainTimeout;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    pending = stack.database().scalar("SELECT count(*) FROM collections WHERE status <> 'settled'");
  } while (pending != "0" && std::chrono::steady_clock::now() < deadline);
  const double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  if (pending != "0") {
    std::fprintf(stderr, "%s collections did not settle in time\n", pending.c_str());
    return 1;
  }
  std::map<std::string, double> settled_us;
  auto connection = stack.database().connect();
  pqxx::work tx(*connection);
  for (const auto& row :
       tx.exec("SELECT id, (extract(epoch FROM settled_at) * 1000000)::bigint FROM collections")) {
    settled_us[row[0].as<std::string>()] = static_cast<double>(row[1].as<long long>());
  }
  std::vector<double> latencies_ms;
  for (const auto& client : clients) {
    for (std::size_t i = 0; i < client.ids.size(); ++i) {
      latencies_ms.push_back((settled_us[client.ids[i]] - client.started_us[i]) / 1000.0);
    }
  }
  std::sort(latencies_ms.begin(), latencies_ms.end());
  std::printf("collections: %zu, clients: %d, pace: %s\n", latencies_ms.size(), client_count,
              rate > 0 ? (std::to_string(rate) + " receives/s").c_str() : "as fast as possible");
  std::printf("settled per second: %.1f (all settled %.2f s after the first receive call)\n",
              static_cast<double>(latencies_ms.size()) / elapsed_s, elapsed_s);
  std::printf("receive -> settled ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
              percentile(latencies_ms, 0.50), percentile(latencies_ms, 0.90),
              percentile(latencies_ms, 0.99), latencies_ms.back());
  return 0;
}
