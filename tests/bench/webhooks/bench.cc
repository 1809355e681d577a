// Webhook delivery benchmark: the real stack (TestStack), one local HTTPS receiver subscribed to
// payout.created, payout.processing and payout.completed, and N test-mode payouts created over
// HTTP. Prints deliveries per second and the event-to-delivery latency (the event row's
// created_at in Postgres to the moment the receiver has read the request), p50/p90/p99/max.
//
// Configuration: PAYRAIL_BENCH_PAYOUTS (default 200), PAYRAIL_BENCH_CLIENTS (threads creating
// payouts, default 4), PAYRAIL_BENCH_ENDPOINTS (endpoints of the organization, each subscribed to
// the three events, default 1: more deliveries per payout, as an organization with several
// endpoints gets), PAYRAIL_WEBHOOK_CONCURRENCY (senders, default 8); plus the test harness
// variables (PAYRAIL_TEST_DATABASE_URL, PAYRAIL_TEST_TEMPLATE_DATABASE, PAYRAIL_TEST_BIN_DIR),
// which tests/bench/webhooks/run sets.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/bench.h"
#include "tests/support/https_receiver.h"
#include "tests/support/stack.h"

namespace {

using namespace payrail::testing;
using Clock = std::chrono::system_clock;

std::string payout_body() {
  return R"({"amount":"1.00","currency":"USDC","destination":{"network":"polygon","address":"0x)" +
         payrail::infra::crypto::hex_encode(payrail::infra::crypto::random_bytes(20)) + R"("}})";
}

// Creates `count` payouts from one client thread; a 429 is waited out and retried.
void create_payouts(const TestStack& stack, const std::string& key, int count) {
  for (int i = 0; i < count; ++i) {
    const auto body = payout_body();
    const auto idempotency = "bench-" + payrail::infra::crypto::random_base62(16);
    for (int tries = 0; tries < 50; ++tries) {
      const auto response =
          stack.http().post("/v1/payouts", body, with_key(key, {{"Idempotency-Key", idempotency}}));
      if (response.status == 201 || response.status == 202) break;
      if (response.status != 429) {
        std::fprintf(stderr, "payout create failed: %d %s\n", response.status,
                     response.body.c_str());
        std::exit(1);
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(200));
    }
  }
}

// Event id -> created_at in epoch microseconds, straight from Postgres (API timestamps are
// second precision).
std::map<std::string, double> event_times_us(const TestStack& stack) {
  auto connection = stack.database().connect();
  pqxx::work tx(*connection);
  std::map<std::string, double> times;
  for (const auto& row :
       tx.exec("SELECT id, extract(epoch FROM created_at) * 1000000 FROM events")) {
    times[row[0].as<std::string>()] = row[1].as<double>();
  }
  return times;
}

// "p50, p99" of a column or expression, as SQL.
std::string p50_p99(const std::string& expression) {
  return "percentile_cont(0.5) WITHIN GROUP (ORDER BY " + expression +
         "), percentile_cont(0.99) WITHIN GROUP (ORDER BY " + expression + ")";
}

void print_p50_p99(const char* label, const pqxx::row& row, int first) {
  std::printf("  %-47s p50 %.1f  p99 %.1f\n", label, row[first].as<double>(),
              row[first + 1].as<double>());
}

// Where the time goes, from Postgres: event -> delivery row (outbox relay, Kafka, fan-out) and
// delivery row -> first attempt started (claim and dispatch), for the measured organization.
void print_breakdown(const TestStack& stack, const std::string& org_id) {
  const auto measured = " WHERE d.org_id = '" + org_id + "'";
  const std::string fan_out_ms = "extract(epoch FROM d.created_at - e.created_at) * 1000";
  const std::string first_attempts =
      " FROM webhook_deliveries d JOIN webhook_attempts a ON a.delivery_id = d.id AND a.number = 1";
  auto connection = stack.database().connect();
  pqxx::work tx(*connection);
  const auto row = tx.exec1("SELECT " + p50_p99(fan_out_ms) + ", " +
                            p50_p99("extract(epoch FROM a.attempted_at - d.created_at) * 1000") +
                            first_attempts + " JOIN events e ON e.id = d.event_id" + measured);
  print_p50_p99("event -> delivery row (relay, Kafka, fan-out) ms:", row, 0);
  print_p50_p99("delivery row -> first attempt started ms:", row, 2);
  for (const auto& type : tx.exec("SELECT e.type, " + p50_p99(fan_out_ms) +
                                  " FROM webhook_deliveries d JOIN events e ON e.id = d.event_id" +
                                  measured + " GROUP BY e.type ORDER BY e.type")) {
    std::printf("    %-18s event -> delivery row ms: p50 %.1f  p99 %.1f\n", type[0].c_str(),
                type[1].as<double>(), type[2].as<double>());
  }
  const auto sends = tx.exec1("SELECT " + p50_p99("a.latency_ms") +
                              " FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = "
                              "a.delivery_id" +
                              measured);
  print_p50_p99("attempt's HTTPS exchange (sender's clock) ms:", sends, 0);
  const auto rates = tx.exec1(
      "SELECT count(*) / greatest(extract(epoch FROM max(d.created_at) - min(d.created_at)), "
      "0.001), count(*) / greatest(extract(epoch FROM max(a.attempted_at) - "
      "min(a.attempted_at)), 0.001)" +
      first_attempts + measured);
  std::printf("  delivery rows created/s (fan-out) %.1f, first attempts started/s %.1f\n",
              rates[0].as<double>(), rates[1].as<double>());
}

}  // namespace

// An endpoint of the organization at `path` of the receiver, subscribed to the three events.
bool subscribe(const TestStack& stack, const TestOrganization& organization,
               const HttpsReceiver& receiver, const std::string& path) {
  const auto created = stack.http().post(
      "/v1/webhooks",
      R"({"url":")" + receiver.url(path) +
          R"(","events":["payout.created","payout.processing","payout.completed"]})",
      with_key(organization.test_key));
  if (created.status != 201) {
    std::fprintf(stderr, "endpoint create failed: %d %s\n", created.status, created.body.c_str());
  }
  return created.status == 201;
}

// A few payouts of another organization, delivered before anything is measured: a worker whose
// consumer group is still being joined when the stack reports ready holds the first messages
// back (0.6-1 s, 1% of the events of a 1000-payout run), which is start-up, not steady state.
bool warm_up(TestStack& stack, const HttpsReceiver& receiver) {
  constexpr int kWarmUpPayouts = 10;
  const auto organization = stack.create_organization();
  if (!subscribe(stack, organization, receiver, "/warm-up")) return false;
  create_payouts(stack, organization.test_key, kWarmUpPayouts);
  if (receiver.wait_for_requests(3 * kWarmUpPayouts, kBenchDrainTimeout, "/warm-up")) return true;
  std::fprintf(stderr, "the warm-up's deliveries did not arrive\n");
  return false;
}

int run() {
  const int payouts = env_int("PAYRAIL_BENCH_PAYOUTS", 200);
  const int clients = std::max(1, env_int("PAYRAIL_BENCH_CLIENTS", 4));
  const int endpoints = std::max(1, env_int("PAYRAIL_BENCH_ENDPOINTS", 1));
  std::vector<std::string> paths;
  for (int e = 1; e <= endpoints; ++e) {
    paths.push_back(endpoints == 1 ? "/bench" : "/bench/" + std::to_string(e));
  }
  HttpsReceiver receiver;
  TestStack stack({.env = {{"PAYRAIL_WEBHOOK_CA_FILE", receiver.certificate_path()},
                           {"PAYRAIL_RATE_LIMIT_PER_SECOND", "10000"},
                           {"PAYRAIL_RATE_LIMIT_BURST", "10000"}}});
  if (!warm_up(stack, receiver)) return 1;
  const auto organization = stack.create_organization();
  for (const auto& path : paths) {
    if (!subscribe(stack, organization, receiver, path)) return 1;
  }
  // Backlog mode: the webhook worker is stopped while the payouts run, then started on the whole
  // backlog, so deliveries/s is what fan-out and delivery can do, not the rate of creation.
  const bool backlog = env_int("PAYRAIL_BENCH_BACKLOG", 0) == 1;
  if (backlog) stack.stop("webhooks");
  const auto started = Clock::now();
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c) {
    const int share = payouts / clients + (c < payouts % clients ? 1 : 0);
    threads.emplace_back([&, share] { create_payouts(stack, organization.test_key, share); });
  }
  for (auto& thread : threads) thread.join();
  const auto created_done = Clock::now();
  const std::size_t events = static_cast<std::size_t>(payouts) * 3;
  std::optional<double> drain_started_us;
  if (backlog) {
    const auto events_sql = "SELECT count(*) FROM events WHERE org_id = '" + organization.id +
                            "' AND type IN ('payout.created', 'payout.processing', "
                            "'payout.completed')";
    while (stack.database().scalar(events_sql) != std::to_string(events)) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    drain_started_us = std::chrono::duration<double, std::micro>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    stack.start("webhooks");
  }
  std::vector<ReceivedRequest> requests;
  for (const auto& path : paths) {
    if (!receiver.wait_for_requests(events, kBenchDrainTimeout, path)) {
      std::fprintf(stderr, "only %zu of %zu deliveries to %s arrived\n",
                   receiver.requests_for(path).size(), events, path.c_str());
      return 1;
    }
    const auto received = receiver.requests_for(path);
    requests.insert(requests.end(), received.begin(), received.end());
  }
  const auto event_times = event_times_us(stack);
  std::map<std::string, int> per_event;
  std::vector<double> latencies_ms;
  double first_event_us = 1e300;
  double first_receipt_us = 1e300;
  double last_receipt_us = 0;
  for (const auto& request : requests) {
    const auto event_id = request.header("service-event-id");
    // A duplicate (the same event twice to one endpoint) would show in the count below.
    if (++per_event[request.path + " " + event_id] > 1) continue;
    const double received_us =
        std::chrono::duration<double, std::micro>(request.received_at.time_since_epoch()).count();
    const double event_us = event_times.at(event_id);
    latencies_ms.push_back((received_us - event_us) / 1000.0);
    first_event_us = std::min(first_event_us, event_us);
    first_receipt_us = std::min(first_receipt_us, received_us);
    last_receipt_us = std::max(last_receipt_us, received_us);
  }
  const double window_s = (last_receipt_us - first_event_us) / 1e6;
  std::printf(
      "webhook benchmark: %d payouts, %d endpoint(s), %zu deliveries (%zu distinct, %zu "
      "duplicates)\n",
      payouts, endpoints, requests.size(), per_event.size(), requests.size() - per_event.size());
  std::printf("  payout creation: %.2f s with %d clients\n",
              std::chrono::duration<double>(created_done - started).count(), clients);
  std::printf("  deliveries/s (first event created -> last delivery received): %.1f over %.2f s\n",
              static_cast<double>(per_event.size()) / window_s, window_s);
  if (drain_started_us) {
    const double drain_s = (last_receipt_us - *drain_started_us) / 1e6;
    std::printf(
        "  backlog drain (worker started -> last delivery received): %.1f deliveries/s "
        "over %.2f s\n",
        static_cast<double>(per_event.size()) / drain_s, drain_s);
    // Without the worker's start (its consumer group's join waits out the broker's rebalance
    // delay): the rate at which deliveries arrive once they flow.
    const double flowing_s = (last_receipt_us - first_receipt_us) / 1e6;
    std::printf(
        "  backlog drain (first delivery received -> last): %.1f deliveries/s over %.2f s\n",
        static_cast<double>(per_event.size() - 1) / flowing_s, flowing_s);
  }
  std::printf("  event-to-delivery latency ms: p50 %.1f  p90 %.1f  p99 %.1f  max %.1f\n",
              percentile(latencies_ms, 0.50), percentile(latencies_ms, 0.90),
              percentile(latencies_ms, 0.99), percentile(latencies_ms, 1.0));
  print_breakdown(stack, organization.id);
  return 0;
}

int main() {
  try {
    return run();
  } catch (const std::exception& failure) {
    std::fprintf(stderr, "benchmark failed: %s\n", failure.what());
    return 1;
  }
}
