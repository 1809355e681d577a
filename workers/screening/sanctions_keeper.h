// Keeps the sanctions lists current in a screening process: loads them at start, reloads them
// when the files change (checked every PAYRAIL_SANCTIONS_RELOAD_INTERVAL_MS, no restart needed),
// and reports the loaded version to Postgres (screening_workers) every few seconds so the API
// knows whether live payouts can be screened.
#pragma once

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/pg/pool.h"

namespace payrail::workers::screening {

class SanctionsKeeper {
 public:
  SanctionsKeeper(infra::pg::Pool& pool, std::string directory,
                  std::chrono::milliseconds reload_interval);
  ~SanctionsKeeper();
  void start();
  const infra::sanctions::SanctionsWatcher& watcher() const { return watcher_; }

 private:
  void run();
  void reload();
  void heartbeat();

  infra::pg::Pool& pool_;
  infra::sanctions::SanctionsWatcher watcher_;
  std::chrono::milliseconds reload_interval_;
  std::string worker_id_;
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace payrail::workers::screening
