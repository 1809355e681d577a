#include "tests/bench/payouts/process_sampler.h"

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <sstream>

namespace payrail::bench {
namespace {

constexpr const char* kSamplerGroup = "(this benchmark's sampler)";

struct Stat {
  long own_ticks = -1;      // utime + stime; -1 when the process is gone
  long children_ticks = 0;  // cutime + cstime: children this process has reaped
  int parent_pid = 0;
};

// /proc/<pid>/stat; the command name (field 2) may hold spaces, so fields count from its ')'.
Stat read_stat(int pid) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/stat");
  std::string text;
  if (!std::getline(file, text)) return {};
  const auto close = text.rfind(')');
  if (close == std::string::npos) return {};
  std::istringstream fields(text.substr(close + 2));
  std::vector<std::string> values;
  for (std::string value; fields >> value;) values.push_back(value);
  if (values.size() < 15) return {};
  Stat stat;  // values[0] is field 3 (state)
  stat.parent_pid = std::stoi(values[1]);
  stat.own_ticks = std::stol(values[11]) + std::stol(values[12]);
  stat.children_ticks = std::stol(values[13]) + std::stol(values[14]);
  return stat;
}

// A line of /proc/<pid>/status in KiB (VmRSS, RssAnon); 0 when the process is gone.
long status_kib(int pid, const std::string& field) {
  std::ifstream file("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(file, line);) {
    if (line.rfind(field + ":", 0) == 0) return std::stol(line.substr(field.size() + 1));
  }
  return 0;
}

// The benchmark's own connections load the cluster but are not the stack's work.
bool is_load_generator(const std::string& name) {
  return name == "postgres: " + std::string(kSamplerGroup) || name == "postgres: payrail-bench";
}

double ticks_to_seconds(long ticks) {
  return static_cast<double>(ticks) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

}  // namespace

ProcessSampler::ProcessSampler(std::vector<NamedProcess> processes, const std::string& database_url,
                               std::chrono::milliseconds interval)
    : processes_(std::move(processes)), connection_(database_url), interval_(interval) {
  pqxx::nontransaction tx(connection_);
  own_backend_pid_ = tx.exec1("SELECT pg_backend_pid()")[0].as<int>();
  postmaster_pid_ = read_stat(own_backend_pid_).parent_pid;
}

ProcessSampler::~ProcessSampler() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
}

void ProcessSampler::start() {
  started_ = std::chrono::steady_clock::now();
  for (const auto& process : processes_) {
    first_ticks_.push_back(read_stat(process.pid).own_ticks);
    rss_before_kib_.push_back(status_kib(process.pid, "VmRSS"));
  }
  const auto postmaster = read_stat(postmaster_pid_);
  postmaster_first_ticks_ = postmaster.own_ticks + postmaster.children_ticks;
  sample_backends();
  for (auto& [pid, backend] : backends_) {
    backend.first_ticks = backend.last_ticks;
    backends_rss_before_kib_ += status_kib(pid, "RssAnon");
  }
  thread_ = std::thread([this] { run(); });
}

void ProcessSampler::run() {
  while (!stopping_) {
    std::this_thread::sleep_for(interval_);
    sample_backends();
  }
}

// A backend first seen after start() was started during the run: all of its time counts.
void ProcessSampler::sample_backends() {
  pqxx::nontransaction tx(connection_);
  for (auto& [pid, backend] : backends_) backend.alive = false;
  for (const auto& row :
       tx.exec("SELECT pid, coalesce(nullif(application_name, ''), backend_type, 'other') "
               "FROM pg_stat_activity")) {
    const int pid = row[0].as<int>();
    const auto ticks = read_stat(pid).own_ticks;
    if (ticks < 0) continue;
    auto [entry, inserted] = backends_.try_emplace(pid);
    auto& backend = entry->second;
    if (inserted) backend.first_ticks = 0;
    // The latest name: a connection seen while it was starting up has no application_name yet.
    backend.group = pid == own_backend_pid_ ? kSamplerGroup : row[1].c_str();
    backend.last_ticks = ticks;
    backend.alive = true;
  }
}

CpuReport ProcessSampler::stop() {
  stopping_ = true;
  if (thread_.joinable()) thread_.join();
  sample_backends();
  CpuReport report;
  report.wall_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
  for (std::size_t i = 0; i < processes_.size(); ++i) {
    const auto ticks = read_stat(processes_[i].pid).own_ticks;
    report.processes.push_back({processes_[i].name,
                                ticks_to_seconds(ticks < 0 ? 0 : ticks - first_ticks_[i]),
                                rss_before_kib_[i], status_kib(processes_[i].pid, "VmRSS")});
  }
  std::map<std::string, long> by_group;
  long sampled_ticks = 0;
  long backends_rss_after_kib = 0;
  for (const auto& [pid, backend] : backends_) {
    by_group["postgres: " + backend.group] += backend.last_ticks - backend.first_ticks;
    sampled_ticks += backend.last_ticks - backend.first_ticks;
    if (backend.alive) backends_rss_after_kib += status_kib(pid, "RssAnon");
  }
  // Everything the cluster spent = the live backends (sampled above) + what the postmaster spent
  // itself and reaped from children that exited; the difference to the sampled time is what
  // exited backends spent after their last sample.
  const auto postmaster = read_stat(postmaster_pid_);
  long alive_ticks = 0;
  long exited_first_ticks = 0;
  for (const auto& [pid, backend] : backends_) {
    if (backend.alive) alive_ticks += backend.last_ticks - backend.first_ticks;
    if (!backend.alive) exited_first_ticks += backend.first_ticks;
  }
  const long cluster_ticks = alive_ticks + postmaster.own_ticks + postmaster.children_ticks -
                             postmaster_first_ticks_ - exited_first_ticks;
  for (const auto& [group, ticks] : by_group) {
    report.processes.push_back({group, ticks_to_seconds(ticks), 0, 0});
  }
  report.processes.push_back({"postgres: (postmaster; exited backends after last sample)",
                              ticks_to_seconds(cluster_ticks - sampled_ticks), 0, 0});
  report.processes.push_back({"postgres: backends' private memory (RssAnon sum)", 0,
                              backends_rss_before_kib_, backends_rss_after_kib});
  for (const auto& process : report.processes) {
    if (!is_load_generator(process.name)) report.total_seconds += process.cpu_seconds;
  }
  return report;
}

void print_cpu_report(const CpuReport& report, int payouts) {
  std::printf("CPU over %.1f s of wall time (%d payouts):\n", report.wall_seconds, payouts);
  std::printf("  %-52s %7s %9s %6s  %s\n", "process", "CPU s", "ms/payout", "share",
              "RSS before/after MiB");
  const double per = payouts > 0 ? 1000.0 / payouts : 0;
  for (const auto& process : report.processes) {
    std::printf("  %-52s %7.2f %9.2f %5.1f%%", process.name.c_str(), process.cpu_seconds,
                process.cpu_seconds * per,
                report.total_seconds > 0 ? 100 * process.cpu_seconds / report.total_seconds : 0);
    if (is_load_generator(process.name)) std::printf(" (load generator: not in the total)");
    if (process.rss_before_kib > 0 || process.rss_after_kib > 0) {
      std::printf("   %6.1f / %6.1f", process.rss_before_kib / 1024.0,
                  process.rss_after_kib / 1024.0);
    }
    std::printf("\n");
  }
  std::printf("  %-52s %7.2f %9.2f\n", "total (the stack)", report.total_seconds,
              report.total_seconds * per);
  std::printf("CPU_MS_PER_PAYOUT=%.2f\n", report.total_seconds * per);
}

}  // namespace payrail::bench
