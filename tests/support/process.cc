#include "tests/support/process.h"

#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>
#include <thread>
#include <vector>

extern char** environ;

namespace payrail::testing {

std::string bin_path(const std::string& relative) {
  const char* dir = std::getenv("PAYRAIL_TEST_BIN_DIR");
  if (dir == nullptr) throw std::runtime_error("PAYRAIL_TEST_BIN_DIR is not set (use infra/test)");
  return std::string(dir) + "/" + relative;
}

namespace {

bool bindable(int port) {
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const bool bound = bind(fd, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0;
  close(fd);
  return bound;
}

}  // namespace

// Not bind(0): that hands out a port of the ephemeral range (32768-60999 on Linux), which any
// outgoing connection of the machine (a database client, a Kafka client) may take before the
// process the port is for listens on it, and that process then fails with "Address already in
// use". A random port below that range is only taken by a listener, which the bind checks; this
// process never hands out the same port twice.
int free_port() {
  constexpr int kFirst = 20000;
  constexpr int kCount = 12768;  // up to 32767
  static std::mutex mutex;
  static std::set<int> handed_out;
  static std::mt19937 random(std::random_device{}() ^ static_cast<unsigned>(getpid()));
  std::lock_guard lock(mutex);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    const int port = kFirst + static_cast<int>(random() % kCount);
    if (handed_out.count(port) == 0 && bindable(port)) {
      handed_out.insert(port);
      return port;
    }
  }
  throw std::runtime_error("no free port below the ephemeral range");
}

int connect_loopback(int port, int receive_buffer_bytes) {
  const int socket_fd = socket(AF_INET, SOCK_STREAM, 0);
  if (receive_buffer_bytes > 0) {
    setsockopt(socket_fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer_bytes,
               sizeof receive_buffer_bytes);
  }
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(socket_fd, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
    close(socket_fd);
    throw std::runtime_error("connect failed");
  }
  return socket_fd;
}

ChildProcess::ChildProcess(std::string name, std::string binary,
                           std::map<std::string, std::string> env,
                           std::vector<std::string> arguments)
    : name_(std::move(name)),
      binary_(std::move(binary)),
      env_(std::move(env)),
      arguments_(std::move(arguments)) {
  const char* log_dir = std::getenv("PAYRAIL_TEST_LOG_DIR");  // infra/test: the build's
  const std::string directory = log_dir != nullptr ? log_dir : "/tmp";
  std::filesystem::create_directories(directory);
  log_path_ = directory + "/payrail-test-" + std::to_string(getpid()) + "-" + name_ + ".log";
}

ChildProcess::~ChildProcess() {
  if (pid_ > 0) stop(SIGKILL);
}

void ChildProcess::start() {
  std::map<std::string, std::string> merged;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    const std::string text(*entry);
    const auto equals = text.find('=');
    if (equals != std::string::npos) merged[text.substr(0, equals)] = text.substr(equals + 1);
  }
  for (const auto& [key, value] : env_) merged[key] = value;
  std::vector<std::string> strings;
  for (const auto& [key, value] : merged) strings.push_back(key + "=" + value);
  std::vector<char*> envp;
  for (auto& text : strings) envp.push_back(text.data());
  envp.push_back(nullptr);
  std::vector<char*> argv{binary_.data()};
  for (auto& argument : arguments_) argv.push_back(argument.data());
  argv.push_back(nullptr);
  log_offset_ = log().size();
  const pid_t parent = getpid();
  pid_ = fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent) _exit(1);
    const int log = open(log_path_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    dup2(log, STDOUT_FILENO);
    dup2(log, STDERR_FILENO);
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    execve(binary_.c_str(), argv.data(), envp.data());
    _exit(127);
  }
}

bool ChildProcess::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (waitpid(pid_, &status, WNOHANG) == pid_) {
    pid_ = -1;
    return false;
  }
  return true;
}

void ChildProcess::stop(int signal, std::chrono::milliseconds timeout) {
  if (pid_ <= 0) return;
  kill(pid_, signal);
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (running() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  if (pid_ > 0) {
    kill(pid_, SIGKILL);
    waitpid(pid_, nullptr, 0);
    pid_ = -1;
  }
}

std::string ChildProcess::log() const {
  std::ifstream file(log_path_);
  std::stringstream content;
  content << file.rdbuf();
  return content.str();
}

bool ChildProcess::wait_for_log(const std::string& text, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto content = log();
    if (content.size() > log_offset_ && content.find(text, log_offset_) != std::string::npos) {
      return true;
    }
    if (!running()) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(25));
  }
  return false;
}

std::pair<int, std::string> run_cli(const std::map<std::string, std::string>& env,
                                    const std::vector<std::string>& arguments) {
  std::string command;
  for (const auto& [key, value] : env) command += key + "='" + value + "' ";
  command += bin_path("infra/payrail");
  for (const auto& argument : arguments) command += " '" + argument + "'";
  command += " 2>&1";
  std::string output;
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  return {WEXITSTATUS(status), output};
}

}  // namespace payrail::testing
