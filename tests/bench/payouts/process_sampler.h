// CPU and resident memory of the processes of a running stack, for the payout benchmark: the
// named processes (API, each worker role, the broker) read from /proc/<pid>/stat, and the
// PostgreSQL backends grouped by application_name (or backend type), sampled periodically from
// pg_stat_activity so that backends which exit during the run are counted up to their last
// sample; the postmaster's reaped-children time covers the rest. Linux only; prints figures.
#pragma once

#include <pqxx/pqxx>

#include <atomic>
#include <chrono>
#include <map>
#include <string>
#include <thread>
#include <vector>

namespace payrail::bench {

struct NamedProcess {
  std::string name;
  int pid = 0;
};

struct ProcessCpu {
  std::string name;
  double cpu_seconds = 0;
  long rss_before_kib = 0;
  long rss_after_kib = 0;
};

struct CpuReport {
  std::vector<ProcessCpu> processes;  // named processes, then one line per PostgreSQL group
  double total_seconds = 0;
  double wall_seconds = 0;
};

class ProcessSampler {
 public:
  ProcessSampler(std::vector<NamedProcess> processes, const std::string& database_url,
                 std::chrono::milliseconds interval = std::chrono::milliseconds(200));
  ~ProcessSampler();
  ProcessSampler(const ProcessSampler&) = delete;
  ProcessSampler& operator=(const ProcessSampler&) = delete;

  void start();  // takes the first sample (RSS before) and starts sampling
  CpuReport stop();

 private:
  struct Backend {
    std::string group;
    long first_ticks = 0;
    long last_ticks = 0;
    bool alive = true;
  };
  void sample_backends();
  void run();

  std::vector<NamedProcess> processes_;
  std::vector<long> first_ticks_;
  std::vector<long> rss_before_kib_;
  pqxx::connection connection_;
  int own_backend_pid_ = 0;
  int postmaster_pid_ = 0;
  long postmaster_first_ticks_ = 0;  // own + reaped children
  std::map<int, Backend> backends_;
  long backends_rss_before_kib_ = 0;
  std::chrono::milliseconds interval_;
  std::chrono::steady_clock::time_point started_;
  std::atomic<bool> stopping_{false};
  std::thread thread_;
};

void print_cpu_report(const CpuReport& report, int payouts);

}  // namespace payrail::bench
