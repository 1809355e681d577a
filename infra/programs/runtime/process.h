// Process lifecycle shared by every binary: configuration, logging, signals.
#pragma once

#include <atomic>
#include <string_view>

#include "infra/programs/config/config.h"

namespace payrail::infra::runtime {

// Loads the configuration (exits with a message if it is invalid), configures logging, serves
// the process's metrics on PAYRAIL_METRICS_PORT (exits with a message naming the setting if the
// port is taken), blocks SIGINT/SIGTERM in every thread created afterwards (they are taken by
// wait_for_stop_signal), and asks the kernel to send SIGTERM if the parent dies so no process is
// ever orphaned.
Config start_process(std::string_view process_name);

// Blocks until SIGINT or SIGTERM.
void wait_for_stop_signal();

// Sets `stop` on SIGINT or SIGTERM from a background thread (for loops that poll a flag).
void stop_on_signal(std::atomic<bool>& stop);

}  // namespace payrail::infra::runtime
