#include "tests/support/https_receiver.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>
#include <poll.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace payrail::testing {
namespace {

constexpr std::size_t kHeaderBytesMax = 64 * 1024;
constexpr std::size_t kBodyBytesMax = 4 * 1024 * 1024;
constexpr int kPollIntervalMs = 20;
constexpr int kSocketTimeoutS = 15;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error("https receiver: " + what);
}

void add_extension(X509* certificate, int nid, const char* value) {
  X509V3_CTX context;
  X509V3_set_ctx_nodb(&context);
  X509V3_set_ctx(&context, certificate, certificate, nullptr, nullptr, 0);
  X509_EXTENSION* extension = X509V3_EXT_conf_nid(nullptr, &context, nid, value);
  if (extension == nullptr) fail("cannot build certificate extension");
  X509_add_ext(certificate, extension, -1);
  X509_EXTENSION_free(extension);
}

// A self-signed P-256 certificate usable both as the server's certificate and as its own trust
// anchor (CA:TRUE), valid for localhost and 127.0.0.1 from an hour ago for a day.
std::pair<EVP_PKEY*, X509*> make_certificate(const std::vector<std::string>& extra_dns_names) {
  const std::string common_name = "payrail-test-receiver";
  EVP_PKEY* key = EVP_EC_gen("P-256");
  if (key == nullptr) fail("cannot generate a key");
  X509* certificate = X509_new();
  X509_set_version(certificate, 2);
  unsigned char serial_bytes[16];
  RAND_bytes(serial_bytes, sizeof(serial_bytes));
  serial_bytes[0] &= 0x7F;
  BIGNUM* serial = BN_bin2bn(serial_bytes, sizeof(serial_bytes), nullptr);
  BN_to_ASN1_INTEGER(serial, X509_get_serialNumber(certificate));
  BN_free(serial);
  X509_gmtime_adj(X509_getm_notBefore(certificate), -3600);
  X509_gmtime_adj(X509_getm_notAfter(certificate), 24 * 3600);
  X509_set_pubkey(certificate, key);
  X509_NAME* name = X509_get_subject_name(certificate);
  X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_ASC,
                             reinterpret_cast<const unsigned char*>(common_name.c_str()), -1, -1,
                             0);
  X509_set_issuer_name(certificate, name);
  add_extension(certificate, NID_basic_constraints, "critical,CA:TRUE");
  add_extension(certificate, NID_key_usage, "critical,digitalSignature,keyCertSign");
  std::string names = "DNS:localhost,IP:127.0.0.1";
  for (const auto& name : extra_dns_names) names += ",DNS:" + name;
  add_extension(certificate, NID_subject_alt_name, names.c_str());
  add_extension(certificate, NID_subject_key_identifier, "hash");
  if (X509_sign(certificate, key, EVP_sha256()) == 0) fail("cannot sign the certificate");
  return {key, certificate};
}

std::string write_certificate(X509* certificate) {
  char path[] = "/tmp/payrail-receiver-XXXXXX";
  const int fd = mkstemp(path);
  if (fd < 0) fail("cannot create the certificate file");
  FILE* file = fdopen(fd, "w");
  PEM_write_X509(file, certificate);
  fclose(file);
  return path;
}

bool read_exactly(SSL* ssl, std::string& buffer, std::size_t wanted) {
  char chunk[16384];
  while (buffer.size() < wanted) {
    const int read =
        SSL_read(ssl, chunk, static_cast<int>(std::min(sizeof(chunk), wanted - buffer.size())));
    if (read <= 0) return false;
    buffer.append(chunk, static_cast<std::size_t>(read));
  }
  return true;
}

// Reads one HTTP/1.1 request: head up to the blank line, then Content-Length bytes of body.
std::optional<ReceivedRequest> read_request(SSL* ssl) {
  std::string data;
  char chunk[4096];
  std::size_t head_end = std::string::npos;
  while ((head_end = data.find("\r\n\r\n")) == std::string::npos) {
    if (data.size() > kHeaderBytesMax) return std::nullopt;
    const int read = SSL_read(ssl, chunk, sizeof(chunk));
    if (read <= 0) return std::nullopt;
    data.append(chunk, static_cast<std::size_t>(read));
  }
  ReceivedRequest request;
  const auto head = data.substr(0, head_end);
  std::size_t line_end = head.find("\r\n");
  const auto request_line = head.substr(0, line_end);
  const auto first_space = request_line.find(' ');
  const auto second_space = request_line.find(' ', first_space + 1);
  request.method = request_line.substr(0, first_space);
  request.path = request_line.substr(first_space + 1, second_space - first_space - 1);
  while (line_end != std::string::npos && line_end < head.size()) {
    const auto next = head.find("\r\n", line_end + 2);
    const auto line = head.substr(
        line_end + 2, next == std::string::npos ? std::string::npos : next - line_end - 2);
    const auto colon = line.find(':');
    if (colon != std::string::npos) {
      auto header_name = line.substr(0, colon);
      std::transform(header_name.begin(), header_name.end(), header_name.begin(), ::tolower);
      auto value = line.substr(colon + 1);
      value.erase(0, value.find_first_not_of(' '));
      request.headers[header_name] = value;
    }
    line_end = next;
  }
  std::size_t length = 0;
  if (const auto it = request.headers.find("content-length"); it != request.headers.end()) {
    length = std::strtoull(it->second.c_str(), nullptr, 10);
  }
  if (length > kBodyBytesMax) return std::nullopt;
  request.body = data.substr(head_end + 4);
  if (!read_exactly(ssl, request.body, length)) return std::nullopt;
  request.body.resize(length);
  request.received_at = std::chrono::system_clock::now();
  return request;
}

}  // namespace

std::string ReceivedRequest::header(const std::string& lower_case_name) const {
  const auto it = headers.find(lower_case_name);
  return it == headers.end() ? "" : it->second;
}

HttpsReceiver::HttpsReceiver(const std::vector<std::string>& extra_dns_names) {
  // A client that gave up (a timeout test) must not kill the test process when we answer.
  signal(SIGPIPE, SIG_IGN);
  auto [key, certificate] = make_certificate(extra_dns_names);
  certificate_path_ = write_certificate(certificate);
  SSL_CTX* context = SSL_CTX_new(TLS_server_method());
  if (context == nullptr || SSL_CTX_use_certificate(context, certificate) != 1 ||
      SSL_CTX_use_PrivateKey(context, key) != 1) {
    fail("cannot set up TLS");
  }
  X509_free(certificate);
  EVP_PKEY_free(key);
  ssl_context_ = context;
  open_listener();
  acceptor_ = std::thread([this] { accept_loop(); });
}

HttpsReceiver::~HttpsReceiver() {
  stopping_ = true;
  if (acceptor_.joinable()) acceptor_.join();
  drop_open_connections();
  reap_finished_connections(true);
  if (listener_ >= 0) close(listener_);
  SSL_CTX_free(static_cast<SSL_CTX*>(ssl_context_));
  std::remove(certificate_path_.c_str());
}

std::string HttpsReceiver::url(const std::string& path, const std::string& host) const {
  return "https://" + host + ":" + std::to_string(port_) + path;
}

void HttpsReceiver::open_listener() {
  listener_ = socket(AF_INET, SOCK_STREAM, 0);
  const int yes = 1;
  setsockopt(listener_, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  address.sin_port = htons(static_cast<std::uint16_t>(port_));
  if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
      listen(listener_, 128) != 0) {
    fail("cannot listen on 127.0.0.1:" + std::to_string(port_));
  }
  socklen_t length = sizeof(address);
  getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
  port_ = ntohs(address.sin_port);
  listener_down_ = false;
}

void HttpsReceiver::accept_loop() {
  while (!stopping_) {
    if (down_ && !listener_down_) {
      // Linux: shutdown takes a listening socket out of LISTEN but keeps its port bound, so
      // connections are refused and no other process can take the port while we are down.
      shutdown(listener_, SHUT_RDWR);
      listener_down_ = true;
      drop_open_connections();
    } else if (!down_ && listener_down_) {
      close(listener_);
      open_listener();  // same port: it stayed ours while down
    }
    reap_finished_connections(false);
    if (listener_down_) {
      std::this_thread::sleep_for(std::chrono::milliseconds(kPollIntervalMs));
      continue;
    }
    pollfd waiting{listener_, POLLIN, 0};
    if (poll(&waiting, 1, kPollIntervalMs) <= 0) continue;
    const int fd = accept(listener_, nullptr, nullptr);
    if (fd < 0) continue;
    ++connections_;
    auto finished = std::make_shared<std::atomic<bool>>(false);
    std::lock_guard lock(mutex_);
    open_fds_.insert(fd);
    handlers_.push_back({std::thread([this, fd, finished] { serve(fd, finished); }), finished});
  }
}

void HttpsReceiver::serve(int fd, std::shared_ptr<std::atomic<bool>> finished) {
  const timeval timeout{kSocketTimeoutS, 0};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  SSL* ssl = SSL_new(static_cast<SSL_CTX*>(ssl_context_));
  SSL_set_fd(ssl, fd);
  if (SSL_accept(ssl) == 1) {
    // HTTP/1.1 keeps the connection for the client's next request, as real receivers do, until
    // the client closes it or asks to.
    while (!stopping_ && !down_) {
      auto request = read_request(ssl);
      if (!request) break;
      const bool close_after = request->header("connection") == "close";
      answer(ssl, *request, close_after);
      if (close_after) break;
    }
    SSL_shutdown(ssl);
  }
  ERR_clear_error();
  SSL_free(ssl);
  {
    std::lock_guard lock(mutex_);
    if (open_fds_.erase(fd) == 1) close(fd);
  }
  *finished = true;
}

void HttpsReceiver::answer(void* ssl, ReceivedRequest& request, bool close_after) {
  const auto response = next_response(request.path);
  request.responded_status = response.status;
  {
    std::lock_guard lock(mutex_);
    requests_.push_back(request);
  }
  arrived_.notify_all();
  for (int waited_ms = 0; waited_ms < response.delay_ms && !stopping_ && !down_;
       waited_ms += kPollIntervalMs) {
    std::this_thread::sleep_for(std::chrono::milliseconds(kPollIntervalMs));
  }
  const std::string reply = "HTTP/1.1 " + std::to_string(response.status) +
                            " Test\r\nContent-Type: application/json\r\nContent-Length: 2\r\n" +
                            (close_after ? "Connection: close\r\n" : "") + "\r\n{}";
  SSL_write(static_cast<SSL*>(ssl), reply.data(), static_cast<int>(reply.size()));
}

PlannedResponse HttpsReceiver::next_response(const std::string& path) {
  std::lock_guard lock(mutex_);
  for (const auto& key : {path, std::string()}) {
    auto& queue = planned_[key];
    if (queue.empty()) continue;
    const auto response = queue.front();
    queue.pop_front();
    return response;
  }
  const auto by_path = default_status_.find(path);
  return PlannedResponse{by_path != default_status_.end() ? by_path->second : default_status_[""],
                         0};
}

void HttpsReceiver::reap_finished_connections(bool all) {
  std::list<Connection> done;
  {
    std::lock_guard lock(mutex_);
    for (auto it = handlers_.begin(); it != handlers_.end();) {
      if (all || *it->finished) {
        done.splice(done.end(), handlers_, it++);
      } else {
        ++it;
      }
    }
  }
  for (auto& connection : done) connection.thread.join();
}

void HttpsReceiver::drop_open_connections() {
  std::lock_guard lock(mutex_);
  for (const int fd : open_fds_) shutdown(fd, SHUT_RDWR);  // the handler closes it
}

void HttpsReceiver::plan(const std::vector<PlannedResponse>& responses, const std::string& path) {
  std::lock_guard lock(mutex_);
  auto& queue = planned_[path];
  queue.insert(queue.end(), responses.begin(), responses.end());
}

void HttpsReceiver::set_default_status(int status, const std::string& path) {
  std::lock_guard lock(mutex_);
  default_status_[path] = status;
}

void HttpsReceiver::set_down(bool down) {
  down_ = down;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (listener_down_ != down && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (listener_down_ != down) fail("the listener did not change state");
}

std::vector<ReceivedRequest> HttpsReceiver::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::vector<ReceivedRequest> HttpsReceiver::requests_for(const std::string& path) const {
  std::lock_guard lock(mutex_);
  std::vector<ReceivedRequest> matching;
  for (const auto& request : requests_) {
    if (request.path == path) matching.push_back(request);
  }
  return matching;
}

bool HttpsReceiver::wait_for_requests(std::size_t count, std::chrono::milliseconds timeout,
                                      const std::optional<std::string>& path) const {
  std::unique_lock lock(mutex_);
  return arrived_.wait_for(lock, timeout, [&] {
    if (!path) return requests_.size() >= count;
    return static_cast<std::size_t>(
               std::count_if(requests_.begin(), requests_.end(),
                             [&](const auto& r) { return r.path == *path; })) >= count;
  });
}

std::string openssl_hmac_sha256_hex(const std::string& key, const std::string& data) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), key.data(), static_cast<int>(key.size()),
       reinterpret_cast<const unsigned char*>(data.data()), data.size(), mac, &length);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string hex;
  for (unsigned int i = 0; i < length; ++i) {
    hex += kHex[mac[i] >> 4];
    hex += kHex[mac[i] & 0x0F];
  }
  return hex;
}

std::optional<std::int64_t> signature_timestamp(const std::string& header) {
  const auto start = header.find("t=");
  if (start != 0) return std::nullopt;
  const auto comma = header.find(',');
  const auto digits = header.substr(2, comma == std::string::npos ? std::string::npos : comma - 2);
  if (digits.empty() || digits.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  return std::stoll(digits);
}

bool verify_webhook_signature(const std::string& header, const std::string& secret,
                              const std::string& body, std::int64_t now_s,
                              std::int64_t tolerance_s) {
  const auto timestamp = signature_timestamp(header);
  const auto v1 = header.find(",v1=");
  if (!timestamp || v1 == std::string::npos) return false;
  const auto received = header.substr(v1 + 4);
  const auto expected = openssl_hmac_sha256_hex(secret, std::to_string(*timestamp) + "." + body);
  if (received.size() != expected.size() ||
      CRYPTO_memcmp(received.data(), expected.data(), expected.size()) != 0) {
    return false;
  }
  return std::llabs(now_s - *timestamp) <= tolerance_s;
}

}  // namespace payrail::testing
