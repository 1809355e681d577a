// The HTTP/1.1 server (plain HTTP on loopback, behind the TLS-terminating proxy: docs/design.md
// "HTTPS"). Pistache 0.0.5 provides only the sockets (accept, epoll, writes); requests are framed
// by api/http/framing.h, because Pistache's own parser mis-frames requests (conflicting
// Content-Length, pipelining, Connection: close). Per connection: requests are answered one at a
// time in the order received (pipelined ones wait their turn), HTTP/1.0 and Connection: close end
// the connection after the response, a framing error is answered with the error envelope and the
// connection is closed, and a connection idle for idle_timeout (or whose request does not arrive
// within the header/body timeouts, 408) is closed.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>

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
  std::size_t header_allowance_bytes = 16 * 1024;  // the header section; beyond: 431
  std::size_t request_line_max_bytes = 8 * 1024;   // beyond: 414
  std::chrono::milliseconds header_timeout{10000};
  std::chrono::milliseconds body_timeout{30000};
  std::chrono::milliseconds idle_timeout{60000};
};

using Dispatch = std::function<void(HttpRequest, Responder)>;

std::string new_request_id();

// The bytes of a response on the wire: status line, headers (Content-Length, Connection,
// Request-Id and the response's own), then the body unless the request was HEAD.
std::string serialize_response(const HttpResponse& response, const std::string& request_id,
                               bool keep_alive, bool head);

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, WorkerPool& pool, Dispatch dispatch);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  void start();
  std::uint16_t port() const;
  void shutdown();

  struct Shared;  // what the per-connection handlers and the reaper share

 private:
  HttpServerOptions options_;
  std::unique_ptr<Pistache::Http::Endpoint> endpoint_;
  std::shared_ptr<Shared> shared_;
  std::thread reaper_;
};

}  // namespace payrail::api
