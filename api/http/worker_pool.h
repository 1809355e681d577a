#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace payrail::api {

// A fixed set of threads with a bounded queue. Pistache reactor threads only enqueue; all
// Postgres and Kafka work happens here. A full queue is refused (the caller answers 503) rather
// than buffering without limit.
class WorkerPool {
 public:
  WorkerPool(std::size_t thread_count, std::size_t queue_max);
  ~WorkerPool();
  WorkerPool(const WorkerPool&) = delete;
  WorkerPool& operator=(const WorkerPool&) = delete;

  bool try_submit(std::function<void()> task);
  void stop();

 private:
  void run();

  std::size_t queue_max_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void()>> queue_;
  bool stopping_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace payrail::api
