// The HTTPS client that delivers one signed webhook (libcurl).
//
// Safety rules, each enforced here:
// - https only, redirects never followed, proxies from the environment ignored;
// - the host is resolved once, every answer is checked (ssrf.h), and the checked addresses are
//   pinned with CURLOPT_RESOLVE so libcurl cannot look the name up again;
// - the socket callback checks the address actually connected to (it must be one of the pinned
//   addresses and allowed), so DNS rebinding has no second chance;
// - a connection is reused only by the next delivery to the same endpoint (same URL, same mode's
//   address policy), and only when the address it was opened to is among that delivery's fresh,
//   checked answers; anything else opens a fresh connection through the socket guard, so no
//   connection ever crosses endpoints, organizations or modes;
// - one total timeout bounds the whole exchange; the response body is read at most to a bound;
// - PAYRAIL_WEBHOOK_CA_FILE certificates are ADDED to the system trust store, never replace it.
//
// A DeliveryClient owns one libcurl handle and is used by one thread at a time.
#pragma once

#include <openssl/x509.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "infra/adapters/webhooks/ssrf.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::webhooks {

constexpr std::size_t kResponseBytesMax = 64 * 1024;  // read and discarded
constexpr std::size_t kAttemptErrorLengthMax = 500;

// Certificates from an extra CA bundle, loaded once and shared by every client.
class TrustAnchors {
 public:
  static model::Result<std::shared_ptr<const TrustAnchors>> load(const std::string& pem_path);
  ~TrustAnchors();
  TrustAnchors(const TrustAnchors&) = delete;
  TrustAnchors& operator=(const TrustAnchors&) = delete;

  // Adds every certificate to `store` (the one libcurl filled from the system bundle).
  bool add_to(X509_STORE* store) const;
  std::size_t size() const { return certificates_.size(); }

 private:
  TrustAnchors() = default;
  std::vector<X509*> certificates_;
};

struct ClientOptions {
  int timeout_ms = 10000;
  std::shared_ptr<const TrustAnchors> extra_trust;  // PAYRAIL_WEBHOOK_CA_FILE, may be null
  std::string user_agent;                           // payrail-webhooks/<version> when empty
  Resolver resolver = system_resolve;
  // When it becomes true (a shutdown that cannot wait any longer), an exchange in progress stops
  // within about a second and reports `interrupted`. May be null.
  const std::atomic<bool>* interrupt = nullptr;
  // Test seams. The system bundle stays libcurl's default unless a test names another, so it
  // can prove the extra CA is added rather than substituted.
  std::optional<std::string> system_ca_file_for_testing;
  // Tests switch the pre-send check off to prove the connect-time check stops a connection alone.
  bool check_resolved_addresses = true;
};

struct DeliveryRequest {
  std::string url;
  std::string event_id;
  std::string body;    // sent byte for byte
  std::string secret;  // whsec_...; used to sign, never logged
  bool allow_private = false;
  std::string endpoint_id;  // the connection-reuse scope; empty: always a fresh connection
};

// The target, resolved and checked, ready to be sent to.
struct PreparedTarget {
  WebhookUrl url;
  std::vector<IpAddress> addresses;
};

struct DeliveryResult {
  std::optional<int> status_code;
  std::int64_t latency_ms = 0;
  std::optional<std::string> error;  // nothing secret, no URL (query strings may hold tokens)
  bool interrupted = false;          // cut short by ClientOptions::interrupt
  bool succeeded() const { return !error && status_code && *status_code / 100 == 2; }
};

class DeliveryClient {
 public:
  explicit DeliveryClient(ClientOptions options);
  ~DeliveryClient();
  DeliveryClient(const DeliveryClient&) = delete;
  DeliveryClient& operator=(const DeliveryClient&) = delete;

  // Parses the URL, resolves it once and checks every address. An error means nothing was sent.
  model::Result<PreparedTarget> prepare(const std::string& url, bool allow_private) const;

  // Signs with the current time and POSTs the body to the pinned addresses.
  DeliveryResult deliver(const PreparedTarget& target, const DeliveryRequest& request);

  // prepare + deliver; a refused target becomes an attempt error.
  DeliveryResult send(const DeliveryRequest& request);

  const ClientOptions& options() const { return options_; }

 private:
  // The connection libcurl keeps after a completed exchange, and whom it may serve next.
  struct KeptConnection {
    std::string endpoint_id;
    std::string url;
    bool allow_private = false;
    IpAddress address;
  };

  bool may_reuse(const PreparedTarget& target, const DeliveryRequest& request) const;
  void remember_connection(const DeliveryRequest& request, const std::optional<IpAddress>& opened,
                           bool completed);

  ClientOptions options_;
  void* handle_ = nullptr;  // CURL*
  std::optional<KeptConnection> kept_;
};

// Once per process, before any thread sends (libcurl's global state).
void initialize_http_client_library();

}  // namespace payrail::infra::webhooks
