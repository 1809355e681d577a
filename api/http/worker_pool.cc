#include "api/http/worker_pool.h"

#include "infra/plumbing/log/log.h"

namespace payrail::api {

WorkerPool::WorkerPool(std::size_t thread_count, std::size_t queue_max) : queue_max_(queue_max) {
  threads_.reserve(thread_count);
  for (std::size_t i = 0; i < thread_count; ++i) threads_.emplace_back([this] { run(); });
}

WorkerPool::~WorkerPool() {
  stop();
}

bool WorkerPool::try_submit(std::function<void()> task) {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ || queue_.size() >= queue_max_) return false;
    queue_.push_back(std::move(task));
  }
  wake_.notify_one();
  return true;
}

void WorkerPool::stop() {
  {
    std::lock_guard lock(mutex_);
    if (stopping_ && threads_.empty()) return;
    stopping_ = true;
  }
  wake_.notify_all();
  for (auto& thread : threads_) {
    if (thread.joinable()) thread.join();
  }
  threads_.clear();
}

void WorkerPool::run() {
  for (;;) {
    std::function<void()> task;
    {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      task = std::move(queue_.front());
      queue_.pop_front();
    }
    try {
      task();
    } catch (const std::exception& failure) {
      infra::log::error("api.task_failed", {{"error", failure.what()}});
    }
  }
}

}  // namespace payrail::api
