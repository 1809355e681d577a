// Real binaries as child processes, for end-to-end and fault tests.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace payrail::testing {

// A binary infra/test built, by its path under the build tree (PAYRAIL_TEST_BIN_DIR): the API's is
// <build tree>/api/payrail-api.
std::string bin_path(const std::string& relative);

class ChildProcess {
 public:
  ChildProcess(std::string name, std::string binary, std::map<std::string, std::string> env,
               std::vector<std::string> arguments = {});
  ~ChildProcess();
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;

  void start();
  // Sends `signal` and waits for the exit (SIGKILL after timeout for a graceful signal).
  void stop(int signal = 15, std::chrono::milliseconds timeout = std::chrono::seconds(15));
  bool running();
  const std::string& log_path() const { return log_path_; }
  std::string log() const;
  // Waits until the log written since the last start() contains `text`; false on timeout or
  // if the process exited.
  bool wait_for_log(const std::string& text, std::chrono::milliseconds timeout);
  void set_env(const std::string& name, const std::string& value) { env_[name] = value; }
  pid_t pid() const { return pid_; }  // -1 before the first start()

 private:
  std::string name_;
  std::string binary_;
  std::map<std::string, std::string> env_;
  std::vector<std::string> arguments_;
  std::string log_path_;
  pid_t pid_ = -1;
  std::size_t log_offset_ = 0;
};

// A loopback TCP port that was free a moment ago, below the ephemeral range (process.cc).
int free_port();

// A socket connected to 127.0.0.1:port (raw-bytes tests); throws if nothing listens there. A
// positive receive_buffer_bytes sets the socket's receive buffer before it connects (a client
// that a large response does not fit at once).
int connect_loopback(int port, int receive_buffer_bytes = 0);

// Runs the `payrail` CLI with `env` added to the environment; returns its exit code and its
// output (stdout and stderr together).
std::pair<int, std::string> run_cli(const std::map<std::string, std::string>& env,
                                    const std::vector<std::string>& arguments);

}  // namespace payrail::testing
