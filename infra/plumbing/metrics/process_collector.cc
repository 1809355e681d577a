#include "infra/plumbing/metrics/process_collector.h"

#include <dirent.h>
#include <sys/resource.h>
#include <unistd.h>

#include <fstream>
#include <iterator>
#include <sstream>
#include <string>

namespace payrail::infra::metrics {
namespace {

prometheus::MetricFamily family(const char* name, const char* help, prometheus::MetricType type,
                                double value) {
  prometheus::ClientMetric metric;
  if (type == prometheus::MetricType::Counter) {
    metric.counter.value = value;
  } else {
    metric.gauge.value = value;
  }
  return {name, help, type, {metric}};
}

long open_descriptors() {
  DIR* directory = opendir("/proc/self/fd");
  if (directory == nullptr) return 0;
  long count = 0;
  while (const auto* entry = readdir(directory)) {
    if (entry->d_name[0] != '.') ++count;
  }
  closedir(directory);
  return count - 1;  // the descriptor of the directory being read
}

// Fields of /proc/self/stat after the command name (which may contain spaces), 1-based as in
// proc(5): utime is 14, stime 15, num_threads 20, starttime 22, vsize 23, rss 24.
std::vector<std::string> stat_fields() {
  std::ifstream file("/proc/self/stat");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  const auto end_of_name = text.rfind(')');
  if (end_of_name == std::string::npos) return {};
  std::istringstream rest(text.substr(end_of_name + 2));
  std::vector<std::string> fields{"", "", ""};  // pid and comm, so indexes match proc(5)
  for (std::string field; rest >> field;) fields.push_back(field);
  return fields;
}

double boot_time_seconds() {
  std::ifstream file("/proc/stat");
  for (std::string key; file >> key;) {
    if (key == "btime") {
      double value = 0;
      file >> value;
      return value;
    }
  }
  return 0;
}

}  // namespace

std::vector<prometheus::MetricFamily> ProcessCollector::Collect() const {
  using prometheus::MetricType;
  std::vector<prometheus::MetricFamily> families;
  const auto fields = stat_fields();
  if (fields.size() > 24) {
    const double ticks = static_cast<double>(sysconf(_SC_CLK_TCK));
    const double page_bytes = static_cast<double>(sysconf(_SC_PAGESIZE));
    families.push_back(family("process_cpu_seconds_total", "User and system CPU time.",
                              MetricType::Counter,
                              (std::stod(fields[14]) + std::stod(fields[15])) / ticks));
    families.push_back(family("process_threads", "Threads of the process.", MetricType::Gauge,
                              std::stod(fields[20])));
    families.push_back(family("process_start_time_seconds", "Start time since the epoch.",
                              MetricType::Gauge,
                              boot_time_seconds() + std::stod(fields[22]) / ticks));
    families.push_back(family("process_virtual_memory_bytes", "Virtual memory size.",
                              MetricType::Gauge, std::stod(fields[23])));
    families.push_back(family("process_resident_memory_bytes", "Resident memory size.",
                              MetricType::Gauge, std::stod(fields[24]) * page_bytes));
  }
  families.push_back(family("process_open_fds", "Open file descriptors.", MetricType::Gauge,
                            static_cast<double>(open_descriptors())));
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) == 0) {
    families.push_back(family("process_max_fds", "The limit on open file descriptors.",
                              MetricType::Gauge, static_cast<double>(limit.rlim_cur)));
  }
  return families;
}

}  // namespace payrail::infra::metrics
