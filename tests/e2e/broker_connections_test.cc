// The embedded broker's connections carry no Nagle delay, on either end. With Nagle's algorithm
// on, a small request or response written while an earlier one was unacknowledged waited for
// the peer's delayed ACK (40 ms on Linux): the API's outbox relay, waiting for the broker's
// acknowledgements, stalled that long every few batches at 425 payouts/s (docs/design.md, "The
// embedded broker"). Each end's socket is inspected in its own process: the test takes a
// duplicate of the descriptor (pidfd_getfd) and reads TCP_NODELAY from it.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

// The inodes of the established TCP connections (IPv4) whose local or remote port is `port`.
std::set<std::string> connections_on_port(int port, bool local) {
  std::ifstream table("/proc/net/tcp");
  std::string line;
  std::getline(table, line);  // header
  std::set<std::string> inodes;
  while (std::getline(table, line)) {
    std::istringstream fields(line);
    std::string slot, local_address, remote_address, state, queues, timer, retransmits, uid,
        timeout, inode;
    fields >> slot >> local_address >> remote_address >> state >> queues >> timer >> retransmits >>
        uid >> timeout >> inode;
    if (state != "01") continue;  // ESTABLISHED
    const auto& address = local ? local_address : remote_address;
    if (std::stoi(address.substr(address.find(':') + 1), nullptr, 16) == port) {
      inodes.insert(inode);
    }
  }
  return inodes;
}

// TCP_NODELAY of every descriptor of `pid` that is one of `inodes`, read through a duplicate.
std::vector<int> nodelay_flags(pid_t pid, const std::set<std::string>& inodes) {
  std::vector<int> flags;
  const int pidfd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
  EXPECT_GE(pidfd, 0) << "pidfd_open: " << std::strerror(errno);
  if (pidfd < 0) return flags;
  for (const auto& entry :
       std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd")) {
    std::error_code error;
    const auto target = std::filesystem::read_symlink(entry.path(), error).string();
    if (error || target.rfind("socket:[", 0) != 0) continue;
    if (inodes.count(target.substr(8, target.size() - 9)) == 0) continue;
    const int number = std::stoi(entry.path().filename().string());
    const int copy = static_cast<int>(syscall(SYS_pidfd_getfd, pidfd, number, 0));
    EXPECT_GE(copy, 0) << "pidfd_getfd: " << std::strerror(errno);
    if (copy < 0) continue;
    int on = 0;
    socklen_t length = sizeof on;
    EXPECT_EQ(getsockopt(copy, IPPROTO_TCP, TCP_NODELAY, &on, &length), 0);
    flags.push_back(on);
    close(copy);
  }
  close(pidfd);
  return flags;
}

TEST(BrokerConnections, NeitherEndDelaysSmallWrites) {
  TestStack stack({.workers = {"screening"}});
  const auto brokers = stack.env().at("PAYRAIL_KAFKA_BROKERS");
  const int port = std::stoi(brokers.substr(brokers.rfind(':') + 1));
  // The API's relay and screening's consumer and relay connect as they start (a bound, not a
  // measure: the connections normally exist once the processes are ready).
  const auto ends_of = [&](const std::string& process, bool accepted) {
    return nodelay_flags(stack.process(process).pid(), connections_on_port(port, accepted));
  };
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while ((ends_of("api", false).empty() || ends_of("screening", false).empty()) &&
         std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
  }
  const auto broker_ends = ends_of("broker", true);
  const auto api_ends = ends_of("api", false);
  const auto screening_ends = ends_of("screening", false);
  ASSERT_FALSE(broker_ends.empty());
  ASSERT_FALSE(api_ends.empty());
  ASSERT_FALSE(screening_ends.empty());
  for (const int on : broker_ends) EXPECT_NE(on, 0) << "a connection the broker accepted";
  for (const int on : api_ends) EXPECT_NE(on, 0) << "a connection of the API";
  for (const int on : screening_ends) EXPECT_NE(on, 0) << "a connection of screening";
}

}  // namespace
}  // namespace payrail::testing
