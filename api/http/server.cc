#include "api/http/server.h"

#include <pistache/endpoint.h>
#include <pistache/http.h>
#include <pistache/peer.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <deque>
#include <mutex>
#include <unordered_map>
#include <variant>
#include <vector>

#include "api/http/framing.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"

namespace payrail::api {
namespace {

namespace Http = Pistache::Http;
using Clock = std::chrono::steady_clock;

// Requests parsed ahead of the one being answered; more bytes than this allows wait unparsed.
constexpr std::size_t kPipelinedMax = 16;
constexpr auto kReaperInterval = std::chrono::milliseconds(200);
// Pistache's own timers are pushed out of the way: timing is the reaper's job.
constexpr auto kPistacheTimeout = std::chrono::hours(24 * 365);
constexpr const char* kConnectionData = "payrail.connection";

std::string_view reason_phrase(int status) {
  switch (status) {
    case 100:
      return "Continue";
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 302:
      return "Found";
    case 308:
      return "Permanent Redirect";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 402:
      return "Payment Required";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 422:
      return "Unprocessable Content";
    case 429:
      return "Too Many Requests";
    case 431:
      return "Request Header Fields Too Large";
    case 500:
      return "Internal Server Error";
    case 503:
      return "Service Unavailable";
    default:
      return "Status";
  }
}

using Entry = std::variant<http::RawRequest, model::Error>;

struct Connection;

// Sends what a socket would not take at once, when it can take more. Responses are written
// straight to the socket by the thread that has them, so only such a remainder waits here.
// Pistache's own write queue is not used: its reactor treats a socket that is readable and
// writable at once as readable only, so an answer sent while the client was still sending (a 413
// decided from the head) waited for as long as bytes kept arriving, and then for ever.
class Flusher {
 public:
  Flusher()
      : epoll_(::epoll_create1(EPOLL_CLOEXEC)), wake_(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) {
    if (epoll_ < 0 || wake_ < 0) throw std::runtime_error("cannot create the HTTP flusher");
    epoll_event event{};
    event.events = EPOLLIN;
    event.data.fd = wake_;
    ::epoll_ctl(epoll_, EPOLL_CTL_ADD, wake_, &event);
  }
  ~Flusher() {
    ::close(wake_);
    ::close(epoll_);
  }
  Flusher(const Flusher&) = delete;
  Flusher& operator=(const Flusher&) = delete;

  // Asks for one call of the connection's send_outgoing once `socket` can take more bytes;
  // false if that cannot be arranged.
  bool watch(int socket, std::weak_ptr<Connection> connection) {
    std::lock_guard lock(mutex_);
    epoll_event event{};
    event.events = EPOLLOUT | EPOLLONESHOT;
    event.data.fd = socket;
    const bool known = watched_.contains(socket);
    if (::epoll_ctl(epoll_, known ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, socket, &event) != 0) {
      return false;
    }
    watched_[socket] = std::move(connection);
    return true;
  }

  // Before the socket is closed: its number may be reused by another connection.
  void forget(int socket) {
    std::lock_guard lock(mutex_);
    if (watched_.erase(socket) > 0) ::epoll_ctl(epoll_, EPOLL_CTL_DEL, socket, nullptr);
  }

  // The connections whose sockets can take more bytes, waiting at most `timeout` for one. A
  // connection found here whose socket was replaced meanwhile has nothing to send, or is asked
  // again: either is harmless.
  std::vector<std::shared_ptr<Connection>> wait(std::chrono::milliseconds timeout) {
    constexpr int kEventsMax = 64;
    epoll_event events[kEventsMax];
    const int count = ::epoll_wait(epoll_, events, kEventsMax, static_cast<int>(timeout.count()));
    std::vector<std::shared_ptr<Connection>> ready;
    std::lock_guard lock(mutex_);
    for (int i = 0; i < count; ++i) {
      const int socket = events[i].data.fd;
      if (socket == wake_) {
        std::uint64_t wakes = 0;
        [[maybe_unused]] const auto ignored = ::read(wake_, &wakes, sizeof wakes);
        continue;
      }
      const auto watched = watched_.find(socket);
      if (watched == watched_.end()) continue;
      if (auto connection = watched->second.lock()) ready.push_back(std::move(connection));
    }
    return ready;
  }

  // Ends a wait at once (the server is stopping).
  void wake() {
    const std::uint64_t one = 1;
    [[maybe_unused]] const auto ignored = ::write(wake_, &one, sizeof one);
  }

 private:
  const int epoll_;
  const int wake_;
  std::mutex mutex_;
  std::unordered_map<int, std::weak_ptr<Connection>> watched_;
};

// One client connection. The reactor thread feeds it bytes; worker threads answer its requests;
// the reaper closes it when idle and sends what its socket would not take at once. Everything
// below is guarded by `mutex`.
struct Connection {
  Connection(int duplicate, http::FramingLimits limits, std::shared_ptr<Flusher> flusher)
      : socket(duplicate), parser(limits), flusher(std::move(flusher)) {}
  ~Connection() { close_socket(); }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;

  std::mutex mutex;
  // A dup() of the peer's descriptor, which this connection writes to and shuts down: unlike
  // the descriptor number Pistache owns, it can never refer to another client's connection.
  int socket = -1;
  http::RequestParser parser;
  std::shared_ptr<Flusher> flusher;
  std::weak_ptr<Connection> weak_self;
  std::deque<Entry> waiting;
  bool in_flight = false;
  bool closing = false;  // the last response was (or is being) sent; read nothing more
  bool closed = false;   // Pistache has dropped the peer
  Clock::time_point last_activity = Clock::now();
  Clock::time_point partial_since = Clock::now();
  std::string outgoing;  // bytes written but not yet taken by the socket, from outgoing_sent
  std::size_t outgoing_sent = 0;
  bool shut_after_sending = false;

  // Sends bytes in order after everything already sent; shuts the connection down afterwards
  // when asked.
  void write(std::string bytes, bool close_after) {
    if (closed || socket < 0) return;
    if (close_after) {
      closing = true;
      waiting.clear();
      shut_after_sending = true;
    }
    if (outgoing.empty()) {
      outgoing = std::move(bytes);
    } else {
      outgoing += bytes;
    }
    send_outgoing();
  }

  // Sends what waits as far as the socket takes it without blocking; the flusher calls again
  // for the rest once the socket can take more.
  void send_outgoing() {
    if (outgoing.empty() || socket < 0) return;
    while (outgoing_sent < outgoing.size()) {
      const auto count = ::send(socket, outgoing.data() + outgoing_sent,
                                outgoing.size() - outgoing_sent, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (count > 0) {
        outgoing_sent += static_cast<std::size_t>(count);
        continue;
      }
      if (count < 0 && errno == EINTR) continue;
      const bool would_block = count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK);
      if (would_block && flusher->watch(socket, weak_self)) return;
      if (would_block) {
        infra::log::warn("http.connection_dropped", {{"reason", "epoll_ctl failed"}});
      }
      // The client is gone, or the rest could never be sent: closed rather than left waiting.
      drop_outgoing();
      closing = true;
      waiting.clear();
      ::shutdown(socket, SHUT_RDWR);
      return;
    }
    drop_outgoing();
    if (shut_after_sending) ::shutdown(socket, SHUT_WR);
  }

  void drop_outgoing() {
    outgoing.clear();
    outgoing.shrink_to_fit();
    outgoing_sent = 0;
  }

  void shutdown_socket(int how) const {
    if (socket >= 0) ::shutdown(socket, how);
  }

  void close_socket() {
    drop_outgoing();
    if (socket < 0) return;
    flusher->forget(socket);
    ::close(socket);
    socket = -1;
  }
};

}  // namespace

std::string new_request_id() {
  return "req_" + infra::crypto::random_base62(24);
}

std::string serialize_response(const HttpResponse& response, const std::string& request_id,
                               bool keep_alive, bool head) {
  std::string bytes = "HTTP/1.1 " + std::to_string(response.status) + " " +
                      std::string(reason_phrase(response.status)) + "\r\n";
  // A replayed response carries the original request's id instead of this one's.
  const bool has_request_id =
      std::any_of(response.headers.begin(), response.headers.end(),
                  [](const auto& header) { return header.first == "Request-Id"; });
  if (!has_request_id) bytes += "Request-Id: " + request_id + "\r\n";
  for (const auto& [name, value] : response.headers) bytes += name + ": " + value + "\r\n";
  const bool has_content_type =
      std::any_of(response.headers.begin(), response.headers.end(),
                  [](const auto& header) { return header.first == "Content-Type"; });
  if (response.status != 204) {
    // JSON unless the response says otherwise (the web console's pages, scripts and styles).
    if (!has_content_type) bytes += "Content-Type: application/json\r\n";
    bytes += "Content-Length: " + std::to_string(response.body.size()) + "\r\n";
  }
  bytes += keep_alive ? "Connection: keep-alive\r\n\r\n" : "Connection: close\r\n\r\n";
  if (!head && response.status != 204) bytes += response.body;
  return bytes;
}

struct HttpServer::Shared {
  HttpServerOptions options;
  WorkerPool* pool;
  Dispatch dispatch;
  std::mutex registry_mutex;
  std::vector<std::weak_ptr<Connection>> connections;
  std::shared_ptr<Flusher> flusher = std::make_shared<Flusher>();
  std::atomic<bool> stopping = false;

  http::FramingLimits limits() const {
    return {.request_line_max_bytes = options.request_line_max_bytes,
            .header_section_max_bytes = options.header_allowance_bytes,
            .body_max_bytes = options.body_max_bytes};
  }
};

namespace {

using Shared = HttpServer::Shared;

HttpRequest to_request(http::RawRequest raw) {
  HttpRequest request;
  request.request_id = new_request_id();
  request.method = std::move(raw.method);
  const auto question = raw.target.find('?');
  request.path = raw.target.substr(0, question);
  if (question != std::string::npos) {
    request.query = http::parse_query(std::string_view(raw.target).substr(question + 1));
  }
  for (auto& [name, value] : raw.fields) {
    auto [it, inserted] = request.headers.try_emplace(name, value);
    if (inserted) continue;
    it->second += ", " + value;
    if (!request.header_repeated(name)) request.repeated_headers.push_back(name);
  }
  request.body = std::move(raw.body);
  request.received_at = Clock::now();
  return request;
}

// Parses what the connection has buffered into waiting requests. Caller holds the mutex.
void parse_waiting(Connection& connection) {
  while (!connection.closing && connection.waiting.size() < kPipelinedMax) {
    auto step = connection.parser.next();
    if (std::holds_alternative<http::NeedMore>(step)) break;
    if (auto* error = std::get_if<model::Error>(&step)) {
      connection.waiting.emplace_back(std::move(*error));
      break;
    }
    auto& request = std::get<http::RawRequest>(step);
    const bool last = !request.keep_alive;
    connection.waiting.emplace_back(std::move(request));
    if (last) break;
  }
  if (connection.parser.has_partial() && connection.waiting.empty() && !connection.in_flight &&
      connection.parser.take_continue_request()) {
    connection.write("HTTP/1.1 100 Continue\r\n\r\n", false);
  }
}

// Sends the answer to the request in flight and lets the next one go.
void finish(const std::shared_ptr<Connection>& connection, const HttpResponse& response,
            const std::string& request_id, bool keep_alive, bool head) {
  std::lock_guard lock(connection->mutex);
  connection->write(serialize_response(response, request_id, keep_alive, head), !keep_alive);
  connection->in_flight = false;
  connection->last_activity = Clock::now();
  if (keep_alive) parse_waiting(*connection);
}

void start_next(const std::shared_ptr<Shared>& shared,
                const std::shared_ptr<Connection>& connection);

void dispatch_request(const std::shared_ptr<Shared>& shared,
                      const std::shared_ptr<Connection>& connection, http::RawRequest raw) {
  const bool keep_alive = raw.keep_alive;
  const bool head = raw.head;
  auto request = to_request(std::move(raw));
  const auto request_id = request.request_id;
  std::weak_ptr<Connection> weak = connection;
  Responder responder(request_id,
                      [shared, weak, request_id, keep_alive, head](HttpResponse response) {
                        auto owner = weak.lock();
                        if (!owner) return;
                        finish(owner, response, request_id, keep_alive, head);
                        start_next(shared, owner);
                      });
  auto task =
      std::make_shared<std::pair<HttpRequest, Responder>>(std::move(request), std::move(responder));
  const bool queued = shared->pool->try_submit(
      [task, shared] { shared->dispatch(std::move(task->first), std::move(task->second)); });
  if (!queued) {
    auto error = model::Error::make(model::ErrorCode::service_unavailable,
                                    "The service is overloaded; retry with backoff.");
    error.headers["Retry-After"] = "1";
    task->second.send_error(error);
  }
}

// Starts the next waiting request unless one is in flight. Framing errors are answered here.
void start_next(const std::shared_ptr<Shared>& shared,
                const std::shared_ptr<Connection>& connection) {
  std::unique_lock lock(connection->mutex);
  if (connection->in_flight || connection->closed || connection->waiting.empty()) return;
  auto entry = std::move(connection->waiting.front());
  connection->waiting.pop_front();
  connection->in_flight = true;
  if (auto* error = std::get_if<model::Error>(&entry)) {
    const auto request_id = new_request_id();
    connection->write(
        serialize_response(error_response(*error, request_id), request_id, false, false), true);
    connection->in_flight = false;
    return;
  }
  lock.unlock();
  dispatch_request(shared, connection, std::move(std::get<http::RawRequest>(entry)));
}

// Closes connections that are idle, or whose request stalls, past their deadlines.
void reap(Shared& shared) {
  std::vector<std::shared_ptr<Connection>> live;
  {
    std::lock_guard lock(shared.registry_mutex);
    auto& all = shared.connections;
    all.erase(
        std::remove_if(all.begin(), all.end(), [](const auto& weak) { return weak.expired(); }),
        all.end());
    for (const auto& weak : all) {
      if (auto connection = weak.lock()) live.push_back(std::move(connection));
    }
  }
  const auto now = Clock::now();
  for (const auto& connection : live) {
    std::lock_guard lock(connection->mutex);
    if (connection->closed || connection->in_flight || !connection->waiting.empty()) continue;
    if (!connection->closing && connection->parser.has_partial()) {
      const auto allowed = connection->parser.headers_complete()
                               ? shared.options.header_timeout + shared.options.body_timeout
                               : shared.options.header_timeout;
      if (now - connection->partial_since < allowed) continue;
      const auto request_id = new_request_id();
      const auto error = model::Error::make(model::ErrorCode::request_timeout,
                                            "The request was not received in time.");
      connection->write(
          serialize_response(error_response(error, request_id), request_id, false, false), true);
      continue;
    }
    if (now - connection->last_activity >= shared.options.idle_timeout) {
      connection->closing = true;
      connection->shutdown_socket(SHUT_RDWR);
    }
  }
}

}  // namespace

class PayrailHandler : public Http::Handler {
 public:
  HTTP_PROTOTYPE(PayrailHandler)

  explicit PayrailHandler(std::shared_ptr<HttpServer::Shared> shared)
      : shared_(std::move(shared)) {}

  void onConnection(const std::shared_ptr<Pistache::Tcp::Peer>& peer) override {
    // Pistache's idle check reads every peer's parser (Http::Handler::onConnection, private,
    // would create it); ours does the parsing, this one only has to exist.
    peer->putData(Http::Handler::ParserData,
                  std::make_shared<Http::RequestParser>(shared_->options.body_max_bytes));
    const int duplicate = ::dup(peer->fd());
    if (duplicate < 0) {
      // Without its own descriptor the connection could never be answered: closed at once,
      // the client can retry.
      infra::log::warn("http.connection_refused", {{"reason", "dup failed"}});
      ::shutdown(peer->fd(), SHUT_RDWR);
    }
    auto connection = std::make_shared<Connection>(duplicate, shared_->limits(), shared_->flusher);
    connection->weak_self = connection;
    peer->putData(kConnectionData, connection);
    std::lock_guard lock(shared_->registry_mutex);
    shared_->connections.push_back(connection);
  }

  void onDisconnection(const std::shared_ptr<Pistache::Tcp::Peer>& peer) override {
    auto connection = connection_of(peer);
    if (!connection) return;
    std::lock_guard lock(connection->mutex);
    connection->closed = true;
    connection->waiting.clear();
    connection->close_socket();
  }

  void onInput(const char* buffer, size_t length,
               const std::shared_ptr<Pistache::Tcp::Peer>& peer) override {
    auto connection = connection_of(peer);
    if (!connection) return;
    {
      std::lock_guard lock(connection->mutex);
      if (connection->closing || connection->closed) return;
      const auto now = Clock::now();
      connection->last_activity = now;
      if (!connection->parser.has_partial()) connection->partial_since = now;
      connection->parser.feed(std::string_view(buffer, length));
      parse_waiting(*connection);
      // A client that keeps pipelining while nothing is answered gets no more buffer than a
      // few maximal requests.
      const auto buffered_max = kPipelinedMax * (shared_->options.body_max_bytes +
                                                 shared_->options.header_allowance_bytes);
      if (connection->parser.buffered_bytes() > buffered_max) {
        connection->closing = true;
        connection->shutdown_socket(SHUT_RDWR);
      }
    }
    start_next(shared_, connection);
  }

  // Requests never reach Pistache's parser, so Pistache never calls these.
  void onRequest(const Http::Request&, Http::ResponseWriter) override {}
  void onTimeout(const Http::Request&, Http::ResponseWriter) override {}

 private:
  static std::shared_ptr<Connection> connection_of(
      const std::shared_ptr<Pistache::Tcp::Peer>& peer) {
    return std::static_pointer_cast<Connection>(peer->tryGetData(kConnectionData));
  }

  std::shared_ptr<HttpServer::Shared> shared_;
};

HttpServer::HttpServer(HttpServerOptions options, WorkerPool& pool, Dispatch dispatch)
    : options_(std::move(options)), shared_(std::make_shared<Shared>()) {
  shared_->options = options_;
  shared_->pool = &pool;
  shared_->dispatch = std::move(dispatch);
}

HttpServer::~HttpServer() {
  shutdown();
}

void HttpServer::start() {
  Pistache::Address address(options_.address, Pistache::Port(options_.port));
  endpoint_ = std::make_unique<Http::Endpoint>(address);
  auto endpoint_options = Http::Endpoint::options()
                              .threads(options_.reactor_threads)
                              .flags(options_.reuse_port ? Pistache::Tcp::Options::ReuseAddr |
                                                               Pistache::Tcp::Options::ReusePort
                                                         : Pistache::Tcp::Options::ReuseAddr)
                              .headerTimeout(kPistacheTimeout)
                              .bodyTimeout(kPistacheTimeout)
                              .keepaliveTimeout(kPistacheTimeout);
  endpoint_->init(endpoint_options);
  endpoint_->setHandler(Http::make_handler<PayrailHandler>(shared_));
  endpoint_->serveThreaded();
  reaper_ = std::thread([shared = shared_] {
    auto next_reap = Clock::now() + kReaperInterval;
    while (!shared->stopping) {
      const auto until_reap =
          std::chrono::ceil<std::chrono::milliseconds>(next_reap - Clock::now());
      for (const auto& connection :
           shared->flusher->wait(std::max(until_reap, std::chrono::milliseconds(0)))) {
        std::lock_guard lock(connection->mutex);
        connection->send_outgoing();
      }
      if (Clock::now() < next_reap) continue;
      reap(*shared);
      next_reap = Clock::now() + kReaperInterval;
    }
  });
}

std::uint16_t HttpServer::port() const {
  return endpoint_ ? static_cast<std::uint16_t>(endpoint_->getPort()) : 0;
}

void HttpServer::shutdown() {
  shared_->stopping = true;
  shared_->flusher->wake();
  if (reaper_.joinable()) reaper_.join();
  if (!endpoint_) return;
  endpoint_->shutdown();
  endpoint_.reset();
}

}  // namespace payrail::api
