// payrail-expiry: time-based expiry by database time, every PAYRAIL_EXPIRY_INTERVAL_MS.
#include <atomic>
#include <thread>

#include "infra/log/log.h"
#include "infra/runtime/process.h"
#include "workers/expiry/expire.h"

int main() {
  using namespace payrail;
  const auto config = infra::runtime::start_process("payrail-expiry");
  infra::pg::Pool pool(
      {.url = config.database_url, .max_connections = 2, .application_name = "payrail-expiry"});
  std::atomic<bool> stop{false};
  infra::runtime::stop_on_signal(stop);
  infra::log::info("expiry.started", {});
  constexpr auto kInterval = std::chrono::seconds(60);
  auto next_pass = std::chrono::steady_clock::now();
  while (!stop) {
    if (std::chrono::steady_clock::now() >= next_pass) {
      auto counts = workers::expiry::expire_once(pool);
      if (!counts.ok()) {
        infra::log::warn("expiry.failed", {{"error", counts.error().message}});
      } else if (counts->idempotency_keys + counts->outbox_rows > 0) {
        infra::log::info("expiry.pass",
                         {{"idempotency_keys", std::to_string(counts->idempotency_keys)},
                          {"outbox_rows", std::to_string(counts->outbox_rows)}});
      }
      next_pass = std::chrono::steady_clock::now() + kInterval;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  return 0;
}
