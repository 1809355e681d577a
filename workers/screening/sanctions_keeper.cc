#include "workers/screening/sanctions_keeper.h"

#include <unistd.h>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"
#include "infra/store/screening/screening_workers.h"

namespace payrail::workers::screening {
namespace {

constexpr auto kHeartbeatInterval = std::chrono::seconds(2);

}  // namespace

SanctionsKeeper::SanctionsKeeper(infra::pg::Pool& pool, std::string directory,
                                 std::chrono::milliseconds reload_interval)
    : pool_(pool),
      watcher_(std::move(directory)),
      reload_interval_(reload_interval),
      worker_id_("screening-" + std::to_string(getpid()) + "-" + infra::crypto::random_base62(6)) {}

SanctionsKeeper::~SanctionsKeeper() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void SanctionsKeeper::start() {
  reload();
  heartbeat();
  thread_ = std::thread([this] { run(); });
}

void SanctionsKeeper::reload() {
  auto reloaded = watcher_.reload_if_changed();
  const auto lists = watcher_.current();
  if (!reloaded.ok()) {
    infra::log::error("sanctions.load_failed",
                      {{"directory", watcher_.directory()}, {"error", reloaded.error().message}});
  } else if (*reloaded && lists) {
    infra::metrics::set_sanctions_list(lists->version(), static_cast<long>(lists->address_count()),
                                       static_cast<long>(lists->name_count()));
    infra::log::info("sanctions.loaded", {{"version", lists->version()},
                                          {"addresses", std::to_string(lists->address_count())},
                                          {"names", std::to_string(lists->name_count())}});
  }
}

void SanctionsKeeper::heartbeat() {
  const auto lists = watcher_.current();
  const std::optional<std::string> version =
      lists ? std::optional<std::string>(lists->version()) : std::nullopt;
  auto status = infra::store::screening_workers::heartbeat(pool_, worker_id_, version);
  if (!status.ok())
    infra::log::warn("sanctions.heartbeat_failed", {{"error", status.error().message}});
}

void SanctionsKeeper::run() {
  auto next_reload = std::chrono::steady_clock::now() + reload_interval_;
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    stop_signal_.wait_for(lock, kHeartbeatInterval, [this] { return stopping_; });
    if (stopping_) break;
    lock.unlock();
    if (std::chrono::steady_clock::now() >= next_reload) {
      reload();
      next_reload = std::chrono::steady_clock::now() + reload_interval_;
    }
    heartbeat();
    lock.lock();
  }
}

}  // namespace payrail::workers::screening
