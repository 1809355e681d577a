#include "infra/plumbing/metrics/metrics.h"

#include <prometheus/counter.h>
#include <prometheus/exposer.h>
#include <prometheus/gauge.h>
#include <prometheus/histogram.h>

#include <map>
#include <memory>
#include <mutex>

#include "infra/plumbing/metrics/process_collector.h"

namespace payrail::infra::metrics {
namespace {

using prometheus::BuildCounter;
using prometheus::BuildGauge;
using prometheus::BuildHistogram;
using prometheus::Counter;
using prometheus::Family;
using prometheus::Gauge;
using prometheus::Histogram;
using prometheus::Labels;

// Request and message handling: milliseconds to seconds.
const Histogram::BucketBoundaries kLatencyBuckets{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                                  0.25,  0.5,    1,     2.5,  5,     10};
// A resource's stages: sub-second in test mode, hours when a payout waits for approval.
const Histogram::BucketBoundaries kStageBuckets{0.05, 0.1, 0.25, 0.5,  1,    2.5,   5,    10,
                                                30,   60,  300,  1800, 3600, 21600, 86400};
// One webhook HTTP exchange, bounded by PAYRAIL_WEBHOOK_TIMEOUT_MS (at most 60 s).
const Histogram::BucketBoundaries kWebhookBuckets{0.01, 0.025, 0.05, 0.1, 0.25, 0.5,
                                                  1,    2.5,   5,    10,  30,   60};
const Histogram::BucketBoundaries kAcquireBuckets{0.0001, 0.0005, 0.001, 0.005, 0.01, 0.05,
                                                  0.1,    0.5,    1,     2,     5};

Labels labels(std::initializer_list<std::pair<const char*, std::string_view>> pairs) {
  Labels result;
  for (const auto& [name, value] : pairs) result.emplace(name, std::string(value));
  return result;
}

Family<Counter>& counter(const char* name, const char* help) {
  return BuildCounter().Name(name).Help(help).Register(registry());
}
Family<Gauge>& gauge(const char* name, const char* help) {
  return BuildGauge().Name(name).Help(help).Register(registry());
}
Family<Histogram>& histogram(const char* name, const char* help) {
  return BuildHistogram().Name(name).Help(help).Register(registry());
}

std::string_view outcome_name(MessageOutcome outcome) {
  switch (outcome) {
    case MessageOutcome::applied:
      return "applied";
    case MessageOutcome::retried:
      return "retried";
    case MessageOutcome::undecodable:
      return "undecodable";
  }
  return "applied";
}

}  // namespace

prometheus::Registry& registry() {
  static auto* instance = new prometheus::Registry();  // lives as long as the process
  return *instance;
}

std::optional<int> serve(std::string_view process_name, const std::string& address, int port) {
  // Never destroyed: stopping civetweb waits up to 2 s for its master thread's poll, which would
  // add 2 s to every shutdown; the process is ending anyway.
  static prometheus::Exposer* exposer = nullptr;
  static auto* shared = new std::shared_ptr<prometheus::Registry>(&registry(), [](auto*) {});
  static auto* process_metrics =
      new std::shared_ptr<ProcessCollector>(std::make_shared<ProcessCollector>());
  if (exposer != nullptr) return std::nullopt;  // once per process
  try {
    exposer = new prometheus::Exposer(address + ":" + std::to_string(port), 1);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  gauge("payrail_build_info", "The process and the Payrail version it runs; always 1.")
      .Add(labels({{"process", process_name}, {"version", PAYRAIL_VERSION}}))
      .Set(1);
  exposer->RegisterCollectable(*shared);
  exposer->RegisterCollectable(*process_metrics);
  const auto ports = exposer->GetListeningPorts();
  if (ports.empty()) return std::nullopt;
  return ports.front();
}

void record_http_request(std::string_view method, std::string_view route, int status,
                         double seconds) {
  static auto& requests = counter("payrail_http_requests_total",
                                  "HTTP requests answered, by method, route pattern and status.");
  static auto& durations = histogram(
      "payrail_http_request_duration_seconds",
      "Time from receiving a request to sending its answer, by method and route pattern.");
  const auto status_text = std::to_string(status);
  requests.Add(labels({{"method", method}, {"route", route}, {"status", status_text}})).Increment();
  durations.Add(labels({{"method", method}, {"route", route}}), kLatencyBuckets).Observe(seconds);
}

void record_message(std::string_view topic, std::string_view group, MessageOutcome outcome,
                    double seconds) {
  static auto& messages =
      counter("payrail_consumer_messages_total",
              "Messages handled by consumers: applied (or already applied), retried, undecodable.");
  static auto& durations = histogram("payrail_consumer_apply_duration_seconds",
                                     "Time to apply one message (applied outcomes only).");
  const auto name = outcome_name(outcome);
  messages.Add(labels({{"topic", topic}, {"group", group}, {"outcome", name}})).Increment();
  if (outcome == MessageOutcome::applied) {
    durations.Add(labels({{"topic", topic}, {"group", group}}), kLatencyBuckets).Observe(seconds);
  }
}

void record_batch(std::string_view group, std::size_t messages) {
  static const Histogram::BucketBoundaries kBatchBuckets{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000};
  static auto& sizes = histogram("payrail_consumer_batch_messages",
                                 "Messages applied together in one batch (one transaction).");
  sizes.Add(labels({{"group", group}}), kBatchBuckets).Observe(static_cast<double>(messages));
}

void record_write_group(std::string_view pool, std::size_t requests, std::string_view pass) {
  static const Histogram::BucketBoundaries kGroupBuckets{1, 2, 4, 8, 16, 32, 64};
  static auto& sizes = histogram("payrail_db_group_requests",
                                 "Requests written together in one transaction (grouped creates).");
  sizes.Add(labels({{"pool", pool}, {"pass", pass}}), kGroupBuckets)
      .Observe(static_cast<double>(requests));
}

void record_message_failure(std::string_view topic, std::string_view group, bool parked) {
  static auto& failures =
      counter("payrail_message_failures_total",
              "Messages that failed for a reason of their own: retried, or parked.");
  failures
      .Add(labels({{"topic", topic}, {"group", group}, {"outcome", parked ? "parked" : "retried"}}))
      .Increment();
}

void set_consumer_lag(std::string_view topic, std::string_view group, long messages) {
  static auto& lag = gauge("payrail_consumer_lag_messages",
                           "Messages after this member's position on the partitions it owns.");
  lag.Add(labels({{"topic", topic}, {"group", group}})).Set(static_cast<double>(messages));
}

void set_assigned_partitions(std::string_view topic, std::string_view group, int partitions) {
  static auto& assigned =
      gauge("payrail_consumer_assigned_partitions", "Partitions this member owns.");
  assigned.Add(labels({{"topic", topic}, {"group", group}})).Set(partitions);
}

void record_rebalance(std::string_view group, std::string_view kind) {
  static auto& rebalances = counter("payrail_consumer_rebalances_total",
                                    "Partition assignments and revocations of this member.");
  rebalances.Add(labels({{"group", group}, {"kind", kind}})).Increment();
}

void record_outbox_publication(std::string_view topic, long published, long failed) {
  static auto& messages = counter("payrail_outbox_published_total",
                                  "Outbox messages acknowledged by the broker, by topic.");
  static auto& failures = counter("payrail_outbox_publish_failures_total",
                                  "Outbox messages the broker did not acknowledge (retried).");
  if (published > 0) messages.Add(labels({{"topic", topic}})).Increment(published);
  if (failed > 0) failures.Add(labels({{"topic", topic}})).Increment(failed);
}

void record_outbox_redrive(long messages) {
  static auto& redriven = counter("payrail_outbox_redriven_total",
                                  "Published messages not consumed in time, published again.");
  redriven.Add({}).Increment(messages);
}

void set_outbox_backlog(const std::vector<OutboxBacklog>& backlog,
                        const std::vector<std::string>& all_topics) {
  static auto& unpublished =
      gauge("payrail_outbox_unpublished_messages", "Outbox rows not yet published, by topic.");
  static auto& unpublished_age = gauge("payrail_outbox_oldest_unpublished_age_seconds",
                                       "Age of the oldest unpublished outbox row (0: none).");
  static auto& unconsumed = gauge("payrail_outbox_unconsumed_messages",
                                  "Published outbox rows the topic's consumer has not applied.");
  static auto& unconsumed_age = gauge("payrail_outbox_oldest_unconsumed_age_seconds",
                                      "Age of the oldest published, unapplied row (0: none).");
  static auto& parked =
      gauge("payrail_messages_parked", "Messages parked after failing; re-driven by an operator.");
  for (const auto& topic : all_topics) {
    OutboxBacklog row{topic};
    for (const auto& entry : backlog) {
      if (entry.topic == topic) row = entry;
    }
    const auto key = labels({{"topic", topic}});
    unpublished.Add(key).Set(static_cast<double>(row.unpublished));
    unpublished_age.Add(key).Set(row.oldest_unpublished_seconds);
    unconsumed.Add(key).Set(static_cast<double>(row.unconsumed));
    unconsumed_age.Add(key).Set(row.oldest_unconsumed_seconds);
    parked.Add(key).Set(static_cast<double>(row.parked));
  }
}

void record_transition(std::string_view resource, std::string_view status, bool created,
                       double seconds_since_created) {
  static auto& transitions =
      counter("payrail_resource_transitions_total",
              "Committed state changes, by resource type and status reached.");
  static auto& creations =
      counter("payrail_resources_created_total", "Resources created, by resource type.");
  static auto& stages = histogram("payrail_resource_stage_seconds",
                                  "Time from a resource's creation to reaching each status.");
  transitions.Add(labels({{"resource", resource}, {"status", status}})).Increment();
  if (created) creations.Add(labels({{"resource", resource}})).Increment();
  stages.Add(labels({{"resource", resource}, {"status", status}}), kStageBuckets)
      .Observe(seconds_since_created);
}

void record_screening_decision(std::string_view resource, std::string_view decision,
                               const std::vector<std::string>& reasons) {
  static auto& decisions = counter("payrail_screening_decisions_total",
                                   "Screening decisions, by resource type, decision and reason.");
  if (reasons.empty()) {
    decisions.Add(labels({{"resource", resource}, {"decision", decision}, {"reason", "none"}}))
        .Increment();
  }
  for (const auto& reason : reasons) {
    decisions.Add(labels({{"resource", resource}, {"decision", decision}, {"reason", reason}}))
        .Increment();
  }
}

void set_sanctions_list(const std::string& version, long addresses, long names) {
  static auto& info = gauge("payrail_sanctions_list_info",
                            "The sanctions snapshot this screening process uses; always 1.");
  static auto& address_count =
      gauge("payrail_sanctions_list_addresses", "Digital-currency addresses in the snapshot.");
  static auto& name_count = gauge("payrail_sanctions_list_names", "Names in the snapshot.");
  static std::mutex mutex;
  static Gauge* current = nullptr;
  std::lock_guard lock(mutex);
  if (current != nullptr) info.Remove(current);
  current = &info.Add(labels({{"version", version}}));
  current->Set(1);
  address_count.Add({}).Set(static_cast<double>(addresses));
  name_count.Add({}).Set(static_cast<double>(names));
}

void set_hot_wallet_info(std::string_view network, std::string_view address) {
  static auto& info =
      gauge("payrail_evm_hot_wallet_info", "Each network's hot-wallet address; always 1.");
  info.Add(labels({{"network", network}, {"address", address}})).Set(1);
}

void set_hot_wallet_balance(std::string_view network, std::string_view asset, double units) {
  static auto& balance = gauge("payrail_evm_hot_wallet_balance",
                               "What each network's hot wallet holds, in the asset's units.");
  balance.Add(labels({{"network", network}, {"asset", asset}})).Set(units);
}

void set_payouts_awaiting_funds(std::string_view network, std::string_view asset, long payouts) {
  static auto& awaiting = gauge("payrail_evm_payouts_awaiting_funds",
                                "Live payouts held back because the hot wallet cannot fund them.");
  awaiting.Add(labels({{"network", network}, {"asset", asset}})).Set(static_cast<double>(payouts));
}

void record_webhook_attempt(std::string_view result, double seconds) {
  static auto& attempts =
      counter("payrail_webhook_attempts_total", "Webhook delivery attempts, by result.");
  static auto& durations = histogram("payrail_webhook_attempt_duration_seconds",
                                     "Duration of one delivery attempt's HTTP exchange.");
  attempts.Add(labels({{"result", result}})).Increment();
  durations.Add(labels({{"result", result}}), kWebhookBuckets).Observe(seconds);
}

void record_webhook_settled(std::string_view state) {
  static auto& settled = counter("payrail_webhook_deliveries_settled_total",
                                 "What each finished attempt did to its delivery, by state.");
  settled.Add(labels({{"state", state}})).Increment();
}

struct PoolMetrics {
  Gauge* in_use;
  Gauge* idle;
  Counter* timeouts;
  Histogram* wait;
  std::string name;
};

PoolMetrics& pool_metrics(std::string_view pool, std::size_t max_connections) {
  static auto& connections = gauge("payrail_db_pool_connections",
                                   "Open PostgreSQL connections of a pool, in use or idle.");
  static auto& maximum = gauge("payrail_db_pool_max_connections", "The pool's connection limit.");
  static auto& timeouts = counter("payrail_db_pool_acquire_timeouts_total",
                                  "Requests for a connection that waited past the timeout.");
  static auto& waits =
      histogram("payrail_db_pool_acquire_wait_seconds", "Time waited for a pooled connection.");
  // One set of series per pool name, shared by the pools of that name (they live as long as
  // the process; a test may open many).
  static std::mutex mutex;
  static std::map<std::string, std::unique_ptr<PoolMetrics>, std::less<>> pools;
  std::lock_guard lock(mutex);
  maximum.Add(labels({{"pool", pool}})).Set(static_cast<double>(max_connections));
  auto& metrics = pools[std::string(pool)];
  if (!metrics) {
    metrics.reset(new PoolMetrics{&connections.Add(labels({{"pool", pool}, {"state", "in_use"}})),
                                  &connections.Add(labels({{"pool", pool}, {"state", "idle"}})),
                                  &timeouts.Add(labels({{"pool", pool}})),
                                  &waits.Add(labels({{"pool", pool}}), kAcquireBuckets),
                                  std::string(pool)});
  }
  return *metrics;
}

void record_pool_acquire(PoolMetrics& pool, double wait_seconds, bool timed_out) {
  pool.wait->Observe(wait_seconds);
  if (timed_out) pool.timeouts->Increment();
}

void set_pool_connections(PoolMetrics& pool, std::size_t in_use, std::size_t idle) {
  pool.in_use->Set(static_cast<double>(in_use));
  pool.idle->Set(static_cast<double>(idle));
}

void record_transaction(PoolMetrics& pool, std::string_view outcome) {
  static auto& transactions =
      counter("payrail_db_transactions_total",
              "Transactions run through a pool: committed, rolled_back (an error result), failed.");
  transactions.Add(labels({{"pool", pool.name}, {"outcome", outcome}})).Increment();
}

void record_rate_limit_lease(long granted, double seconds) {
  static auto& leases = counter("payrail_rate_limit_leases_total",
                                "Leases of tokens from the shared rate-limit buckets.");
  static auto& tokens =
      counter("payrail_rate_limit_leased_tokens_total", "Tokens granted by those leases.");
  static auto& durations = histogram("payrail_rate_limit_lease_duration_seconds",
                                     "Time of one lease (one PostgreSQL round trip).");
  leases.Add({}).Increment();
  tokens.Add({}).Increment(static_cast<double>(granted));
  durations.Add({}, kLatencyBuckets).Observe(seconds);
}

void record_rate_limit_decision(bool allowed) {
  static auto& decisions = counter("payrail_rate_limit_decisions_total",
                                   "Rate-limit decisions: allowed or limited (answered 429).");
  decisions.Add(labels({{"decision", allowed ? "allowed" : "limited"}})).Increment();
}

}  // namespace payrail::infra::metrics
