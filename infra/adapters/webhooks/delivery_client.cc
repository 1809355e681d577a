#include "infra/adapters/webhooks/delivery_client.h"

#include <curl/curl.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <mutex>

#include "infra/adapters/webhooks/signature.h"

namespace payrail::infra::webhooks {
namespace {

constexpr std::size_t kTrustAnchorsMax = 1000;
constexpr long kTrustStoreCacheSeconds = 3600;  // a changed system bundle is seen within an hour
constexpr long kIdleConnectionSeconds = 30;     // a kept connection idle longer is not reused

// What the socket callback needs to judge the address libcurl is about to connect to.
struct ConnectGuard {
  const std::vector<IpAddress>* pinned = nullptr;
  bool allow_private = false;
  std::optional<std::string> refusal;  // set when the guard refused a connection
  std::optional<IpAddress> opened;     // set when the guard let a connection be opened
};

curl_socket_t open_guarded_socket(void* context, curlsocktype purpose,
                                  struct curl_sockaddr* address) {
  auto& guard = *static_cast<ConnectGuard*>(context);
  if (purpose != CURLSOCKTYPE_IPCXN) return CURL_SOCKET_BAD;
  const auto connected = from_sockaddr(&address->addr, address->addrlen);
  if (!connected) {
    guard.refusal = "connection refused by address policy: unknown address family";
    return CURL_SOCKET_BAD;
  }
  const auto address_class = classify(*connected);
  const bool pinned =
      std::find(guard.pinned->begin(), guard.pinned->end(), *connected) != guard.pinned->end();
  if (!pinned || (!guard.allow_private && is_forbidden(address_class))) {
    guard.refusal =
        "connection refused by address policy: " + std::string(address_class_name(address_class)) +
        " address " + connected->to_string() + (pinned ? "" : " (not the resolved address)");
    return CURL_SOCKET_BAD;
  }
  guard.opened = *connected;
  return socket(address->family, address->socktype, address->protocol);
}

CURLcode add_extra_trust(CURL*, void* ssl_context, void* anchors) {
  auto* store = SSL_CTX_get_cert_store(static_cast<SSL_CTX*>(ssl_context));
  if (store == nullptr) return CURLE_SSL_CERTPROBLEM;
  return static_cast<const TrustAnchors*>(anchors)->add_to(store) ? CURLE_OK
                                                                  : CURLE_SSL_CERTPROBLEM;
}

struct ResponseSink {
  std::size_t bytes = 0;
};

std::size_t discard_body(char*, std::size_t size, std::size_t count, void* sink) {
  auto& response = *static_cast<ResponseSink*>(sink);
  const auto chunk = size * count;
  response.bytes += chunk;
  return response.bytes > kResponseBytesMax ? 0 : chunk;  // stop reading past the bound
}

std::string error_text(CURLcode code, int timeout_ms) {
  switch (code) {
    case CURLE_OPERATION_TIMEDOUT:
      return "timed out after " + std::to_string(timeout_ms) + " ms";
    case CURLE_COULDNT_CONNECT:
      return "could not connect";
    case CURLE_PEER_FAILED_VERIFICATION:
      return "TLS certificate verification failed";
    case CURLE_SSL_CONNECT_ERROR:
      return "TLS handshake failed";
    case CURLE_GOT_NOTHING:
      return "empty reply from the receiver";
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
      return "connection broken during the exchange";
    default:
      return std::string("delivery failed: ") + curl_easy_strerror(code);
  }
}

std::string user_agent_of(const ClientOptions& options) {
  return options.user_agent.empty() ? std::string("payrail-webhooks/") + PAYRAIL_VERSION
                                    : options.user_agent;
}

// "host:port:addr1,addr2" (IPv6 in brackets): libcurl uses these and never asks DNS.
std::string resolve_entry(const PreparedTarget& target) {
  std::string entry = target.url.host + ":" + std::to_string(target.url.port) + ":";
  for (std::size_t i = 0; i < target.addresses.size(); ++i) {
    if (i > 0) entry += ',';
    const auto& address = target.addresses[i];
    entry += address.v6 ? "[" + address.to_string() + "]" : address.to_string();
  }
  return entry;
}

class CurlLists {
 public:
  ~CurlLists() {
    curl_slist_free_all(headers);
    curl_slist_free_all(resolve);
  }
  curl_slist* headers = nullptr;
  curl_slist* resolve = nullptr;
};

void set_transport_options(CURL* curl, const ClientOptions& options) {
  curl_easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_REDIR_PROTOCOLS_STR, "https");
  curl_easy_setopt(curl, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(curl, CURLOPT_PROXY, "");  // never a proxy from the environment
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, static_cast<long>(options.timeout_ms));
  // One cached connection: the last one, which deliver() alone decides to reuse or not.
  curl_easy_setopt(curl, CURLOPT_MAXCONNECTS, 1L);
  curl_easy_setopt(curl, CURLOPT_MAXAGE_CONN, kIdleConnectionSeconds);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(curl, CURLOPT_SSL_VERIFYHOST, 2L);
  // The system bundle file alone (no CA directory) lets libcurl build the store once and keep
  // it for this handle: parsing the bundle costs ~20 ms per connection otherwise.
  curl_easy_setopt(curl, CURLOPT_CAPATH, nullptr);
  curl_easy_setopt(curl, CURLOPT_CA_CACHE_TIMEOUT, kTrustStoreCacheSeconds);
  if (options.system_ca_file_for_testing) {
    curl_easy_setopt(curl, CURLOPT_CAINFO, options.system_ca_file_for_testing->c_str());
  }
  if (options.extra_trust) {
    curl_easy_setopt(curl, CURLOPT_SSL_CTX_FUNCTION, add_extra_trust);
    curl_easy_setopt(curl, CURLOPT_SSL_CTX_DATA, options.extra_trust.get());
  }
}

// libcurl calls it about once a second when idle, more often while data moves.
int check_interrupt(void* flag, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  const auto* interrupt = static_cast<const std::atomic<bool>*>(flag);
  return interrupt != nullptr && interrupt->load() ? 1 : 0;
}

}  // namespace

model::Result<std::shared_ptr<const TrustAnchors>> TrustAnchors::load(const std::string& pem_path) {
  BIO* file = BIO_new_file(pem_path.c_str(), "r");
  if (file == nullptr) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "PAYRAIL_WEBHOOK_CA_FILE cannot be read: " + pem_path);
  }
  std::shared_ptr<TrustAnchors> anchors(new TrustAnchors());
  while (anchors->certificates_.size() < kTrustAnchorsMax) {
    X509* certificate = PEM_read_bio_X509(file, nullptr, nullptr, nullptr);
    if (certificate == nullptr) break;
    anchors->certificates_.push_back(certificate);
  }
  ERR_clear_error();  // the loop ends on the "no start line" error at the end of the file
  BIO_free(file);
  if (anchors->certificates_.empty()) {
    return model::Error::make(model::ErrorCode::internal_error,
                              "PAYRAIL_WEBHOOK_CA_FILE holds no PEM certificate: " + pem_path);
  }
  return std::shared_ptr<const TrustAnchors>(std::move(anchors));
}

TrustAnchors::~TrustAnchors() {
  for (auto* certificate : certificates_) X509_free(certificate);
}

bool TrustAnchors::add_to(X509_STORE* store) const {
  for (auto* certificate : certificates_) {
    // OpenSSL 3 accepts a certificate that is already present; anything else is a real failure.
    if (X509_STORE_add_cert(store, certificate) != 1) return false;
  }
  return true;
}

void initialize_http_client_library() {
  static std::once_flag once;
  std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
}

DeliveryClient::DeliveryClient(ClientOptions options) : options_(std::move(options)) {
  initialize_http_client_library();
  handle_ = curl_easy_init();
}

DeliveryClient::~DeliveryClient() {
  curl_easy_cleanup(static_cast<CURL*>(handle_));
}

model::Result<PreparedTarget> DeliveryClient::prepare(const std::string& url,
                                                      bool allow_private) const {
  auto parsed = parse_webhook_url(url);
  if (!parsed.ok()) return parsed.error();
  auto addresses = resolve_target(*parsed, options_.resolver);
  if (!addresses.ok()) return addresses.error();
  if (options_.check_resolved_addresses) {
    if (auto status = check_addresses(*addresses, allow_private); !status.ok()) {
      return status.error();
    }
  }
  if (addresses->empty()) return model::bad_request("url's host has no address.", "url");
  return PreparedTarget{std::move(*parsed), std::move(*addresses)};
}

DeliveryResult DeliveryClient::deliver(const PreparedTarget& target,
                                       const DeliveryRequest& request) {
  auto* curl = static_cast<CURL*>(handle_);
  DeliveryResult result;
  if (curl == nullptr) {
    result.error = "HTTP client unavailable";
    return result;
  }
  curl_easy_reset(curl);
  set_transport_options(curl, options_);
  CurlLists lists;
  const auto signature = signature_header(request.secret, std::time(nullptr), request.body);
  for (const auto& header : {std::string("Content-Type: application/json"),
                             std::string(kSignatureHeader) + ": " + signature,
                             std::string(kEventIdHeader) + ": " + request.event_id,
                             std::string("Expect:")}) {  // no 100-continue round trip
    lists.headers = curl_slist_append(lists.headers, header.c_str());
  }
  const auto pin = resolve_entry(target);
  if (!target.url.literal) lists.resolve = curl_slist_append(lists.resolve, pin.c_str());
  ConnectGuard guard{&target.addresses, request.allow_private, std::nullopt, std::nullopt};
  curl_easy_setopt(curl, CURLOPT_FRESH_CONNECT, may_reuse(target, request) ? 0L : 1L);
  ResponseSink sink;
  const auto request_url = target.url.request_url();
  const auto user_agent = user_agent_of(options_);
  curl_easy_setopt(curl, CURLOPT_URL, request_url.c_str());
  curl_easy_setopt(curl, CURLOPT_RESOLVE, lists.resolve);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETFUNCTION, open_guarded_socket);
  curl_easy_setopt(curl, CURLOPT_OPENSOCKETDATA, &guard);
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, lists.headers);
  curl_easy_setopt(curl, CURLOPT_USERAGENT, user_agent.c_str());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDS, request.body.data());
  curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(request.body.size()));
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, discard_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  if (options_.interrupt != nullptr) {
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, check_interrupt);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA,
                     const_cast<std::atomic<bool>*>(options_.interrupt));
  }
  const auto started = std::chrono::steady_clock::now();
  const auto code = curl_easy_perform(curl);
  result.latency_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                          std::chrono::steady_clock::now() - started)
                          .count();
  long status = 0;
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &status);
  if (status >= 100 && status <= 599) result.status_code = static_cast<int>(status);
  const bool body_cut = code == CURLE_WRITE_ERROR && sink.bytes > kResponseBytesMax;
  if (code == CURLE_ABORTED_BY_CALLBACK) {
    result.interrupted = true;
    result.error = "interrupted: the delivery worker was stopping; the attempt is retried";
  } else if (code != CURLE_OK && !body_cut) {
    result.error = guard.refusal ? *guard.refusal : error_text(code, options_.timeout_ms);
  } else if (result.status_code && *result.status_code / 100 == 3) {
    result.error = "redirects are not followed";
  }
  remember_connection(request, guard.opened, code == CURLE_OK && !result.interrupted);
  if (result.error && result.error->size() > kAttemptErrorLengthMax) {
    result.error->resize(kAttemptErrorLengthMax);
  }
  return result;
}

bool DeliveryClient::may_reuse(const PreparedTarget& target, const DeliveryRequest& request) const {
  if (!kept_ || request.endpoint_id.empty()) return false;
  const auto& kept = *kept_;
  if (kept.endpoint_id != request.endpoint_id || kept.url != request.url ||
      kept.allow_private != request.allow_private) {
    return false;
  }
  // The name was resolved again for this delivery: the kept connection's address must still be
  // one of the checked answers, and still allowed, exactly as the socket guard would demand.
  const bool still_pinned = std::find(target.addresses.begin(), target.addresses.end(),
                                      kept.address) != target.addresses.end();
  return still_pinned && (request.allow_private || !is_forbidden(classify(kept.address)));
}

void DeliveryClient::remember_connection(const DeliveryRequest& request,
                                         const std::optional<IpAddress>& opened, bool completed) {
  // A connection reused by this exchange keeps the address it was opened to.
  const auto address = opened ? opened : (kept_ ? std::optional(kept_->address) : std::nullopt);
  if (!completed || !address || request.endpoint_id.empty()) {
    kept_.reset();
    return;
  }
  kept_ = KeptConnection{request.endpoint_id, request.url, request.allow_private, *address};
}

DeliveryResult DeliveryClient::send(const DeliveryRequest& request) {
  auto target = prepare(request.url, request.allow_private);
  if (!target.ok()) {
    DeliveryResult refused;
    refused.error = target.error().message;
    return refused;
  }
  return deliver(*target, request);
}

}  // namespace payrail::infra::webhooks
