// A real HTTPS webhook receiver for tests: an OpenSSL server on 127.0.0.1 (port chosen by the
// kernel) with a self-signed certificate generated at start. The delivery worker trusts it
// through PAYRAIL_WEBHOOK_CA_FILE = certificate_path(). It records every request (headers, the
// exact body bytes, the time it arrived), keeps connections open between requests (HTTP/1.1),
// answers from a script (e.g. 500, 500, then 200), can
// be taken down and brought back on the same port, and verifies signatures with OpenSSL's HMAC
// directly, independently of the service's code.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace payrail::testing {

struct ReceivedRequest {
  std::string method;
  std::string path;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;                            // exactly the bytes received
  std::chrono::system_clock::time_point received_at;
  int responded_status = 0;

  std::string header(const std::string& lower_case_name) const;
};

struct PlannedResponse {
  int status = 200;
  int delay_ms = 0;  // before answering (a slow receiver)
};

class HttpsReceiver {
 public:
  // Every receiver has its own key and self-signed certificate for localhost, 127.0.0.1 and
  // `extra_dns_names` (names a test resolver maps to 127.0.0.1).
  explicit HttpsReceiver(const std::vector<std::string>& extra_dns_names = {});
  ~HttpsReceiver();
  HttpsReceiver(const HttpsReceiver&) = delete;
  HttpsReceiver& operator=(const HttpsReceiver&) = delete;

  int port() const { return port_; }
  // https://127.0.0.1:<port><path>, or with another host spelling (e.g. "localhost").
  std::string url(const std::string& path = "/hooks", const std::string& host = "127.0.0.1") const;
  // PEM file of the self-signed certificate (a CA bundle of one).
  const std::string& certificate_path() const { return certificate_path_; }

  // Answers for the next requests to `path` (any path when empty), in order; afterwards the
  // path's default status, else the receiver's default (200).
  void plan(const std::vector<PlannedResponse>& responses, const std::string& path = "");
  void set_default_status(int status, const std::string& path = "");
  // Down: the listener is closed (connections are refused) and open connections are dropped.
  void set_down(bool down);

  std::vector<ReceivedRequest> requests() const;
  std::vector<ReceivedRequest> requests_for(const std::string& path) const;
  std::size_t connection_count() const { return connections_.load(); }
  // Waits until at least `count` requests (for `path`, when given) have arrived.
  bool wait_for_requests(std::size_t count, std::chrono::milliseconds timeout,
                         const std::optional<std::string>& path = std::nullopt) const;

 private:
  struct Connection {
    std::thread thread;
    std::shared_ptr<std::atomic<bool>> finished;
  };

  void open_listener();
  void accept_loop();
  void serve(int fd, std::shared_ptr<std::atomic<bool>> finished);
  void answer(void* ssl, ReceivedRequest& request, bool close_after);  // SSL*
  PlannedResponse next_response(const std::string& path);
  void reap_finished_connections(bool all);
  void drop_open_connections();

  std::string certificate_path_;
  void* ssl_context_ = nullptr;  // SSL_CTX*
  int port_ = 0;
  int listener_ = -1;

  mutable std::mutex mutex_;
  mutable std::condition_variable arrived_;
  std::vector<ReceivedRequest> requests_;
  std::map<std::string, std::deque<PlannedResponse>> planned_;  // by path; "" for any
  std::map<std::string, int> default_status_{{"", 200}};
  std::set<int> open_fds_;
  std::atomic<bool> down_{false};
  std::atomic<bool> listener_down_{false};
  std::atomic<bool> stopping_{false};
  std::atomic<std::size_t> connections_{0};
  std::list<Connection> handlers_;
  std::thread acceptor_;
};

// Verification as an integrator writes it, with OpenSSL's HMAC and nothing from the service:
// parse "t=<unix seconds>,v1=<hex>", recompute HMAC-SHA256(secret, "<t>.<body>"), compare in
// constant time, and require |now - t| <= tolerance.
bool verify_webhook_signature(const std::string& header, const std::string& secret,
                              const std::string& body, std::int64_t now_s,
                              std::int64_t tolerance_s = 300);
std::optional<std::int64_t> signature_timestamp(const std::string& header);
// Lowercase hex HMAC-SHA256 with OpenSSL's one-shot HMAC().
std::string openssl_hmac_sha256_hex(const std::string& key, const std::string& data);

}  // namespace payrail::testing
