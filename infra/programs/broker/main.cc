// payrail-broker: the embedded Kafka-protocol broker of the development stack and the tests.
//
// It hosts librdkafka's mock cluster (real wire protocol: produce, fetch, consumer groups,
// committed offsets, idempotent producer; data kept in memory) and creates the registry's
// topics, because the mock cluster has no CreateTopics. Losing its memory loses nothing: Postgres
// is the truth and the outbox relay re-drives unconsumed messages.
//
// The mock cluster always binds an ephemeral port. So that clients can reconnect after this
// process restarts, the first IPv4 listener is bound to PAYRAIL_KAFKA_PORT instead: this binary
// defines bind(), which the dynamic linker resolves for librdkafka ahead of libc's.
// PAYRAIL_KAFKA_ADVERTISED_PORT (network-fault tests) makes the cluster advertise another port
// in its metadata, that of a TCP proxy in front of it, so that clients reach the broker only
// through the proxy: getsockname() on that listener reports it.
#include <dlfcn.h>
#include <librdkafka/rdkafka.h>
#include <librdkafka/rdkafka_mock.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/prctl.h>
#include <sys/socket.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>

#include "infra/plumbing/metrics/metrics.h"
#include "topics/registry.h"

namespace {

std::atomic<int> g_fixed_port{0};
std::atomic<int> g_advertised_port{0};
std::atomic<int> g_fixed_listener{-1};
std::atomic<bool> g_stop{false};

void on_signal(int) {
  g_stop = true;
}

int parse_port(const char* name, int fallback) {
  const char* text = std::getenv(name);
  if (text == nullptr || *text == '\0') return fallback;
  char* end = nullptr;
  const long port = std::strtol(text, &end, 10);
  if (*end != '\0' || port < 0 || port > 65535) {
    std::fprintf(stderr, "%s must be 0-65535\n", name);
    std::exit(2);
  }
  return static_cast<int>(port);
}

}  // namespace

extern "C" int bind(int fd, const struct sockaddr* address, socklen_t length) {
  using BindFunction = int (*)(int, const struct sockaddr*, socklen_t);
  static const auto real_bind = reinterpret_cast<BindFunction>(dlsym(RTLD_NEXT, "bind"));
  const int port = g_fixed_port.exchange(0);  // only the first listener gets the fixed port
  if (port > 0 && address->sa_family == AF_INET && length >= sizeof(sockaddr_in)) {
    sockaddr_in fixed = *reinterpret_cast<const sockaddr_in*>(address);
    if (fixed.sin_port == 0) {
      fixed.sin_port = htons(static_cast<uint16_t>(port));
      g_fixed_listener = fd;
      return real_bind(fd, reinterpret_cast<const sockaddr*>(&fixed), sizeof fixed);
    }
  }
  return real_bind(fd, address, length);
}

// The mock cluster leaves Nagle's algorithm on for the connections it accepts, so a small
// response written while an earlier one was unacknowledged waited for the client's delayed ACK
// (40 ms on Linux): a relay waiting for its acknowledgements stalled that long every few
// batches (docs/design.md, "The embedded broker"). Every accepted TCP connection gets
// TCP_NODELAY.
static int without_nagle(int fd) {
  if (fd >= 0) {
    const int on = 1;
    (void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // fails harmlessly if not TCP
  }
  return fd;
}

extern "C" int accept(int fd, struct sockaddr* address, socklen_t* length) {
  using AcceptFunction = int (*)(int, struct sockaddr*, socklen_t*);
  static const auto real_accept = reinterpret_cast<AcceptFunction>(dlsym(RTLD_NEXT, "accept"));
  return without_nagle(real_accept(fd, address, length));
}

extern "C" int accept4(int fd, struct sockaddr* address, socklen_t* length, int flags) {
  using Accept4Function = int (*)(int, struct sockaddr*, socklen_t*, int);
  static const auto real_accept4 = reinterpret_cast<Accept4Function>(dlsym(RTLD_NEXT, "accept4"));
  return without_nagle(real_accept4(fd, address, length, flags));
}

extern "C" int getsockname(int fd, struct sockaddr* address, socklen_t* length) {
  using GetsocknameFunction = int (*)(int, struct sockaddr*, socklen_t*);
  static const auto real_getsockname =
      reinterpret_cast<GetsocknameFunction>(dlsym(RTLD_NEXT, "getsockname"));
  const int result = real_getsockname(fd, address, length);
  const int advertised = g_advertised_port.load();
  // Only the cluster's one look at its fixed listener, right after bind(): the descriptor
  // number may be reused later.
  if (result == 0 && advertised > 0 && address->sa_family == AF_INET) {
    int listener = fd;
    if (g_fixed_listener.compare_exchange_strong(listener, -1)) {
      reinterpret_cast<sockaddr_in*>(address)->sin_port = htons(static_cast<uint16_t>(advertised));
    }
  }
  return result;
}

int main() {
  g_fixed_port = parse_port("PAYRAIL_KAFKA_PORT", 29092);
  g_advertised_port = parse_port("PAYRAIL_KAFKA_ADVERTISED_PORT", 0);
  const char* prefix_env = std::getenv("PAYRAIL_TOPIC_PREFIX");
  const std::string prefix = prefix_env ? prefix_env : "";
  std::signal(SIGINT, on_signal);
  std::signal(SIGTERM, on_signal);
  prctl(PR_SET_PDEATHSIG, SIGTERM);  // never outlive infra/up (it would keep the port)

  char error_text[512];
  rd_kafka_conf_t* conf = rd_kafka_conf_new();
  rd_kafka_conf_set(conf, "log_level", "3", error_text, sizeof error_text);
  rd_kafka_t* handle = rd_kafka_new(RD_KAFKA_PRODUCER, conf, error_text, sizeof error_text);
  if (handle == nullptr) {
    std::fprintf(stderr, "payrail-broker: %s\n", error_text);
    return 1;
  }
  rd_kafka_mock_cluster_t* cluster = rd_kafka_mock_cluster_new(handle, 1);
  if (cluster == nullptr) {
    std::fprintf(stderr,
                 "payrail-broker: could not start the mock cluster: is port %d in use? Set "
                 "PAYRAIL_KAFKA_PORT to a free port\n",
                 parse_port("PAYRAIL_KAFKA_PORT", 29092));
    rd_kafka_destroy(handle);
    return 1;
  }
  for (const auto& topic : payrail::topics::all_topics()) {
    const auto name = payrail::topics::broker_topic_name(topic, prefix);
    rd_kafka_mock_topic_create(cluster, name.c_str(), topic.partitions, 1);
  }
  // After the cluster: its listener must be the first port-0 bind of this process (see bind()).
  const char* metrics_address = std::getenv("PAYRAIL_METRICS_ADDRESS");
  const int metrics_port = parse_port("PAYRAIL_METRICS_PORT", 0);
  const auto served = payrail::infra::metrics::serve(
      "payrail-broker", metrics_address && *metrics_address ? metrics_address : "127.0.0.1",
      metrics_port);
  if (!served) {
    std::fprintf(stderr,
                 "payrail-broker: cannot serve metrics on port %d (in use?); set "
                 "PAYRAIL_METRICS_PORT to a free port (0 picks one)\n",
                 metrics_port);
    return 2;
  }
  std::printf("payrail-broker metrics on port %d\n", *served);
  std::printf("payrail-broker ready bootstrap=%s\n", rd_kafka_mock_cluster_bootstraps(cluster));
  std::fflush(stdout);
  while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
  rd_kafka_mock_cluster_destroy(cluster);
  rd_kafka_destroy(handle);
  return 0;
}
