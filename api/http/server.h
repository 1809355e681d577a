// The Pistache adapter: accepts connections, parses HTTP on the reactor threads, copies each
// request into an HttpRequest and hands it to the worker pool. Protocol-level failures (body too
// large, unparsable request, header or body timeout, pool full) are answered here with the same
// error envelope as everything else.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "api/http/message.h"
#include "api/http/worker_pool.h"

namespace Pistache::Http {
class Endpoint;
}

namespace payrail::api {

struct HttpServerOptions {
  std::string address = "127.0.0.1";
  std::uint16_t port = 8080;
  // SO_REUSEPORT: several API processes share one port, the kernel spreads connections.
  bool reuse_port = false;
  int reactor_threads = 2;
  std::size_t body_max_bytes = 64 * 1024;
  std::size_t header_allowance_bytes = 16 * 1024;
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{30000};
};

using Dispatch = std::function<void(HttpRequest, Responder)>;

std::string new_request_id();

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, WorkerPool& pool, Dispatch dispatch);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void start();
  std::uint16_t port() const;
  void shutdown();

  struct Shared;  // what the per-connection Pistache handlers share

 private:
  HttpServerOptions options_;
  std::unique_ptr<Pistache::Http::Endpoint> endpoint_;
  std::shared_ptr<Shared> shared_;
};

}  // namespace payrail::api
