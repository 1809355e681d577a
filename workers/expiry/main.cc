// payrail-expiry: time-based work by database time. Unpaid collections expire every
// PAYRAIL_EXPIRY_INTERVAL_MS (their events reach the outbox, which this process's relay
// publishes); retention of idempotency keys and consumed outbox rows runs every minute.
#include <atomic>
#include <thread>

#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/log/log.h"
#include "infra/programs/runtime/process.h"
#include "infra/store/outbox/relay.h"
#include "workers/expiry/expire.h"

namespace {

using namespace payrail;

constexpr auto kRetentionInterval = std::chrono::seconds(60);

void collections_pass(infra::pg::Pool& pool, infra::store::outbox::Relay& relay,
                      const infra::Config& config) {
  auto expired = workers::expiry::expire_collections(pool, config.expiry_test_clock_offset_s);
  if (!expired.ok()) {
    infra::log::warn("expiry.collections_failed", {{"error", expired.error().message}});
  } else if (*expired > 0) {
    relay.wake();
    infra::log::info("expiry.collections", {{"expired", std::to_string(*expired)}});
  }
}

void retention_pass(infra::pg::Pool& pool) {
  auto counts = workers::expiry::expire_once(pool);
  if (!counts.ok()) {
    infra::log::warn("expiry.failed", {{"error", counts.error().message}});
  } else if (counts->idempotency_keys + counts->outbox_rows > 0) {
    infra::log::info("expiry.pass", {{"idempotency_keys", std::to_string(counts->idempotency_keys)},
                                     {"outbox_rows", std::to_string(counts->outbox_rows)}});
  }
}

}  // namespace

int main() {
  const auto config = infra::runtime::start_process("payrail-expiry");
  infra::pg::Pool pool(
      {.url = config.database_url, .max_connections = 3, .application_name = "payrail-expiry"});
  auto producer = infra::kafka::Producer::create(
      {.brokers = config.kafka_brokers, .client_id = "payrail-expiry"});
  if (!producer.ok()) {
    infra::log::error("expiry.start_failed", {{"error", producer.error().message}});
    return 1;
  }
  infra::store::outbox::Relay relay(
      pool, **producer,
      {.topic_prefix = config.topic_prefix,
       .poll_interval = std::chrono::milliseconds(config.outbox_poll_interval_ms),
       .redrive_after = std::chrono::milliseconds(config.outbox_redrive_after_ms)});
  relay.start();
  std::atomic<bool> stop{false};
  infra::runtime::stop_on_signal(stop);
  if (config.expiry_test_clock_offset_s != 0) {
    infra::log::warn("expiry.test_clock_offset",
                     {{"seconds", std::to_string(config.expiry_test_clock_offset_s)}});
  }
  infra::log::info("expiry.started", {});
  const auto collection_interval = std::chrono::milliseconds(config.expiry_interval_ms);
  auto next_collections = std::chrono::steady_clock::now();
  auto next_retention = next_collections;
  while (!stop) {
    const auto now = std::chrono::steady_clock::now();
    if (now >= next_collections) {
      collections_pass(pool, relay, config);
      next_collections = std::chrono::steady_clock::now() + collection_interval;
    }
    if (now >= next_retention) {
      retention_pass(pool);
      next_retention = std::chrono::steady_clock::now() + kRetentionInterval;
    }
    std::this_thread::sleep_for(std::min(collection_interval, std::chrono::milliseconds(200)));
  }
  relay.stop();
  return 0;
}
