#include "api/health_probe.h"

#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"

namespace payrail::api {

HealthProbe::HealthProbe(infra::pg::Pool& pool, infra::kafka::Producer& producer,
                         std::chrono::milliseconds interval)
    : pool_(pool), producer_(producer), interval_(interval) {
  thread_ = std::thread([this] { run(); });
}

HealthProbe::~HealthProbe() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (thread_.joinable()) thread_.join();
}

void HealthProbe::check_now() {
  auto postgres = pool_.transact([](pqxx::work& tx) -> model::Status {
    tx.exec("SELECT 1");
    return model::ok_status();
  });
  postgres_ok_ = postgres.ok();
  kafka_ok_ = producer_.reachable(std::chrono::milliseconds(1000));
}

void HealthProbe::run() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    lock.unlock();
    check_now();
    lock.lock();
    stop_signal_.wait_for(lock, interval_, [this] { return stopping_; });
  }
}

}  // namespace payrail::api
