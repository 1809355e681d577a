// A small TCP proxy for network-fault tests: clients connect to port(), bytes go to the upstream
// loopback port and back. While faults are on, every chunk is delayed by up to latency and, with
// reset_percent chance, the connection is reset (RST to both sides) instead of forwarded; the
// answers to chosen requests can be held back until the faults change (a gate the test opens).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <list>
#include <mutex>
#include <string>
#include <thread>

namespace payrail::testing {

struct FaultSettings {
  std::chrono::milliseconds latency_max{0};
  int reset_per_mille = 0;  // chance, per forwarded chunk, of resetting the connection
  // A request chunk (client to upstream) containing this text resets the connection instead of
  // reaching the upstream: one kind of request fails, the others pass (empty: none).
  std::string reset_requests_containing;
  // A request containing this text reaches the upstream, but its answer is held in the proxy
  // until the faults are set again (set_faults or clear_faults opens the gate): a test can act
  // after the upstream took a request and before the client learns of it, without timing.
  std::string hold_answers_to_requests_containing;
};

class FaultProxy {
 public:
  // Listens on listen_port, or on a free port when it is 0.
  explicit FaultProxy(int upstream_port, int listen_port = 0);
  ~FaultProxy();
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  int port() const { return port_; }
  void set_faults(FaultSettings settings);
  void clear_faults() { set_faults({}); }
  int resets() const { return resets_.load(); }
  int connections() const { return connections_.load(); }
  // How many answers have been held back since the proxy started (see FaultSettings).
  int held_answers() const { return held_answers_.load(); }

 private:
  void accept_loop();
  void pump(int client, int upstream);

  int upstream_port_;
  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> latency_max_ms_{0};
  std::atomic<int> reset_per_mille_{0};
  std::atomic<int> resets_{0};
  std::mutex settings_mutex_;
  std::string reset_requests_containing_;
  std::string hold_answers_to_requests_containing_;
  std::condition_variable gate_;  // notified whenever the settings change (under settings_mutex_)
  std::uint64_t settings_generation_ = 0;  // a held answer waits for it to change
  std::atomic<int> held_answers_{0};
  std::atomic<int> connections_{0};
  std::thread acceptor_;
  std::mutex threads_mutex_;
  std::list<std::thread> threads_;
};

}  // namespace payrail::testing
