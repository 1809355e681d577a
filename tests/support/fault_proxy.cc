#include "tests/support/fault_proxy.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <optional>
#include <random>
#include <stdexcept>
#include <string_view>

namespace payrail::testing {
namespace {

sockaddr_in loopback(int port) {
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return address;
}

// Closing with SO_LINGER 0 sends RST: the peer sees "connection reset", as on a real network.
void reset(int socket_fd) {
  linger option{1, 0};
  setsockopt(socket_fd, SOL_SOCKET, SO_LINGER, &option, sizeof option);
  close(socket_fd);
}

}  // namespace

FaultProxy::FaultProxy(int upstream_port, int listen_port) : upstream_port_(upstream_port) {
  // CLOEXEC everywhere: a process the test starts later (a restarted PostgreSQL, a worker) must
  // not inherit these sockets, or closing them here would never reach the other side.
  listener_ = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const int on = 1;
  setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on);
  auto address = loopback(listen_port);
  if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0 ||
      listen(listener_, 128) != 0) {
    throw std::runtime_error("fault proxy: cannot listen");
  }
  socklen_t length = sizeof address;
  getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  acceptor_ = std::thread([this] { accept_loop(); });
}

FaultProxy::~FaultProxy() {
  {
    std::lock_guard lock(settings_mutex_);
    stopping_ = true;
  }
  gate_.notify_all();  // held answers are let go
  shutdown(listener_, SHUT_RDWR);
  close(listener_);
  if (acceptor_.joinable()) acceptor_.join();
  std::lock_guard lock(threads_mutex_);
  for (auto& thread : threads_) thread.join();
}

void FaultProxy::set_faults(FaultSettings settings) {
  latency_max_ms_ = static_cast<int>(settings.latency_max.count());
  reset_per_mille_ = settings.reset_per_mille;
  {
    std::lock_guard lock(settings_mutex_);
    reset_requests_containing_ = settings.reset_requests_containing;
    hold_answers_to_requests_containing_ = settings.hold_answers_to_requests_containing;
    ++settings_generation_;
  }
  gate_.notify_all();
}

void FaultProxy::accept_loop() {
  while (!stopping_) {
    pollfd poll_fd{listener_, POLLIN, 0};
    if (poll(&poll_fd, 1, 100) <= 0) continue;
    const int client = accept4(listener_, nullptr, nullptr, SOCK_CLOEXEC);
    if (client < 0) continue;
    const int upstream = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    auto address = loopback(upstream_port_);
    if (connect(upstream, reinterpret_cast<sockaddr*>(&address), sizeof address) != 0) {
      close(upstream);
      reset(client);
      continue;
    }
    ++connections_;
    std::lock_guard lock(threads_mutex_);
    threads_.emplace_back([this, client, upstream] { pump(client, upstream); });
  }
}

// Both directions on one thread; ends when either side closes, a fault resets, or the proxy stops.
void FaultProxy::pump(int client, int upstream) {
  std::mt19937 random(std::random_device{}());
  char buffer[65536];
  bool open = true;
  // Set when a request to hold the answer of went upstream: the next answer chunk waits until
  // the settings change from those of this generation.
  std::optional<std::uint64_t> hold_answer_from;
  while (open && !stopping_) {
    pollfd fds[2] = {{client, POLLIN, 0}, {upstream, POLLIN, 0}};
    if (poll(fds, 2, 100) <= 0) continue;
    for (int side = 0; side < 2 && open; ++side) {
      if ((fds[side].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
      const int from = side == 0 ? client : upstream;
      const int to = side == 0 ? upstream : client;
      const auto count = recv(from, buffer, sizeof buffer, 0);
      if (count <= 0) {
        open = false;
        break;
      }
      const bool refused_request = side == 0 && [&] {
        std::lock_guard lock(settings_mutex_);
        return !reset_requests_containing_.empty() &&
               std::string_view(buffer, static_cast<std::size_t>(count))
                       .find(reset_requests_containing_) != std::string_view::npos;
      }();
      if (refused_request || static_cast<int>(random() % 1000) < reset_per_mille_) {
        ++resets_;
        reset(client);
        reset(upstream);
        return;
      }
      if (side == 0) {
        std::lock_guard lock(settings_mutex_);
        if (!hold_answers_to_requests_containing_.empty() &&
            std::string_view(buffer, static_cast<std::size_t>(count))
                    .find(hold_answers_to_requests_containing_) != std::string_view::npos) {
          hold_answer_from = settings_generation_;
        }
      } else if (hold_answer_from) {
        std::unique_lock lock(settings_mutex_);
        ++held_answers_;
        gate_.wait(lock, [&] { return stopping_ || settings_generation_ != *hold_answer_from; });
        hold_answer_from.reset();
      }
      if (const int latency = latency_max_ms_; latency > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(random() % (latency + 1)));
      }
      if (send(to, buffer, static_cast<std::size_t>(count), MSG_NOSIGNAL) != count) open = false;
    }
  }
  close(client);
  close(upstream);
}

}  // namespace payrail::testing
