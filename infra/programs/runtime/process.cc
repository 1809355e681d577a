#include "infra/programs/runtime/process.h"

#include <signal.h>
#include <sys/prctl.h>

#include <cstdio>
#include <cstdlib>
#include <thread>

#include "infra/plumbing/log/log.h"
#include "infra/plumbing/metrics/metrics.h"

namespace payrail::infra::runtime {
namespace {

sigset_t stop_signals() {
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  return signals;
}

}  // namespace

Config start_process(std::string_view process_name) {
  prctl(PR_SET_PDEATHSIG, SIGTERM);
  signal(SIGPIPE, SIG_IGN);
  const auto signals = stop_signals();
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  auto config = load_config_from_environment();
  if (!config.ok()) {
    std::fprintf(stderr, "%.*s: invalid configuration: %s\n", static_cast<int>(process_name.size()),
                 process_name.data(), config.error().message.c_str());
    std::exit(2);
  }
  log::configure(process_name, log::parse_level(config->log_level));
  const auto port = metrics::serve(process_name, config->metrics_address, config->metrics_port);
  if (!port) {
    std::fprintf(stderr,
                 "%.*s: cannot serve metrics on %s:%d (the port is in use?); set "
                 "PAYRAIL_METRICS_PORT to a free port (0 picks one)\n",
                 static_cast<int>(process_name.size()), process_name.data(),
                 config->metrics_address.c_str(), config->metrics_port);
    std::exit(2);
  }
  log::info("metrics.listening",
            {{"address", config->metrics_address}, {"port", std::to_string(*port)}});
  return std::move(config.value());
}

void wait_for_stop_signal() {
  const auto signals = stop_signals();
  int received = 0;
  sigwait(&signals, &received);
  log::info("process.stopping", {{"signal", std::to_string(received)}});
}

void stop_on_signal(std::atomic<bool>& stop) {
  std::thread([&stop] {
    wait_for_stop_signal();
    stop = true;
  }).detach();
}

}  // namespace payrail::infra::runtime
