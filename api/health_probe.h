// Checks Postgres and Kafka once a second in the background; GET /v1/health reads the latest
// result, so the endpoint never waits on a dependency.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

namespace payrail::infra::pg {
class Pool;
}
namespace payrail::infra::kafka {
class Producer;
}

namespace payrail::api {

class HealthProbe {
 public:
  HealthProbe(infra::pg::Pool& pool, infra::kafka::Producer& producer,
              std::chrono::milliseconds interval = std::chrono::seconds(1));
  ~HealthProbe();
  void check_now();
  bool postgres_ok() const { return postgres_ok_; }
  bool kafka_ok() const { return kafka_ok_; }

 private:
  void run();

  infra::pg::Pool& pool_;
  infra::kafka::Producer& producer_;
  std::chrono::milliseconds interval_;
  std::atomic<bool> postgres_ok_{false};
  std::atomic<bool> kafka_ok_{false};
  std::mutex mutex_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread thread_;
};

}  // namespace payrail::api
