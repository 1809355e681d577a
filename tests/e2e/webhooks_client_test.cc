// The delivery client against real HTTPS receivers (no stack): signed requests and headers, the
// extra CA added to (not substituted for) the system trust store, no redirects, the timeout,
// and both SSRF checks — before sending, on the resolved addresses, and at connect time, on the
// address the socket actually connects to.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <memory>
#include <sstream>

#include "infra/adapters/webhooks/delivery_client.h"
#include "tests/support/https_receiver.h"

namespace payrail::testing {
namespace {

namespace hooks = infra::webhooks;

constexpr const char* kSecret = "whsec_ClientTestSecret0123456789abcdefghijKLMN";
constexpr const char* kBody =
    R"({"event":"payout.created","event_id":"evt_client","amount":"1.00"})";

std::shared_ptr<const hooks::TrustAnchors> trust(const HttpsReceiver& receiver) {
  return *hooks::TrustAnchors::load(receiver.certificate_path());
}

hooks::ClientOptions options_trusting(const HttpsReceiver& receiver, int timeout_ms) {
  hooks::ClientOptions options;
  options.timeout_ms = timeout_ms;
  options.extra_trust = trust(receiver);
  return options;
}

hooks::DeliveryRequest request_to(const std::string& url, bool allow_private = true) {
  return {url, "evt_client", kBody, kSecret, allow_private};
}

hooks::DeliveryRequest request_for_endpoint(const std::string& url,
                                            const std::string& endpoint_id) {
  auto request = request_to(url);
  request.endpoint_id = endpoint_id;
  return request;
}

hooks::Resolver resolver_of(std::map<std::string, std::string> answers, int* calls = nullptr) {
  return [answers, calls](const std::string& host) -> model::Result<std::vector<hooks::IpAddress>> {
    if (calls != nullptr) ++*calls;
    const auto it = answers.find(host);
    if (it == answers.end()) return model::bad_request("unknown host in test resolver", "url");
    const auto v4 = hooks::parse_ipv4_numeric(it->second);
    return std::vector<hooks::IpAddress>{v4 ? *v4 : *hooks::parse_ipv6(it->second)};
  };
}

TEST(WebhookClient, DeliversTheExactBodySignedWithHeaders) {
  HttpsReceiver receiver;
  hooks::DeliveryClient client(options_trusting(receiver, 5000));
  const auto result = client.send(request_to(receiver.url("/hooks?token=abc")));
  ASSERT_TRUE(result.succeeded()) << result.error.value_or("");
  EXPECT_EQ(result.status_code, 200);
  const auto requests = receiver.requests();
  ASSERT_EQ(requests.size(), 1u);
  const auto& received = requests[0];
  EXPECT_EQ(received.method, "POST");
  EXPECT_EQ(received.path, "/hooks?token=abc");
  EXPECT_EQ(received.body, kBody);
  EXPECT_EQ(received.header("content-type"), "application/json");
  EXPECT_EQ(received.header("service-event-id"), "evt_client");
  EXPECT_EQ(received.header("user-agent"), std::string("payrail-webhooks/") + PAYRAIL_VERSION);
  EXPECT_EQ(received.header("expect"), "");
  const auto signature = received.header("service-signature");
  EXPECT_TRUE(verify_webhook_signature(signature, kSecret, received.body, std::time(nullptr)))
      << signature;
  EXPECT_FALSE(
      verify_webhook_signature(signature, kSecret, received.body + " ", std::time(nullptr)));
}

// Receiver A is trusted only through the extra CA file, receiver B only through the "system"
// bundle: both succeed, so the extra CA is added to the system store, not substituted for it.
// Receiver C is in neither and fails verification.
TEST(WebhookClient, ExtraCaIsAddedToTheSystemTrustStore) {
  HttpsReceiver extra_only;
  HttpsReceiver system_only;
  HttpsReceiver untrusted;
  auto options = options_trusting(extra_only, 5000);
  options.system_ca_file_for_testing = system_only.certificate_path();
  hooks::DeliveryClient client(options);
  EXPECT_TRUE(client.send(request_to(extra_only.url())).succeeded());
  EXPECT_TRUE(client.send(request_to(system_only.url())).succeeded());
  const auto refused = client.send(request_to(untrusted.url()));
  EXPECT_FALSE(refused.succeeded());
  EXPECT_EQ(refused.error.value_or(""), "TLS certificate verification failed");
  EXPECT_TRUE(untrusted.requests().empty());

  options.extra_trust = nullptr;  // without the extra CA, A is not trusted either
  hooks::DeliveryClient without_extra(options);
  EXPECT_EQ(without_extra.send(request_to(extra_only.url())).error.value_or(""),
            "TLS certificate verification failed");
  EXPECT_EQ(extra_only.requests().size(), 1u);
}

TEST(WebhookClient, RedirectsAreNotFollowedAndStatusesAreReported) {
  HttpsReceiver receiver;
  receiver.plan({{302, 0}, {500, 0}, {204, 0}});
  hooks::DeliveryClient client(options_trusting(receiver, 5000));
  const auto redirected = client.send(request_to(receiver.url()));
  EXPECT_EQ(redirected.status_code, 302);
  EXPECT_EQ(redirected.error.value_or(""), "redirects are not followed");
  EXPECT_FALSE(redirected.succeeded());
  const auto failed = client.send(request_to(receiver.url()));
  EXPECT_EQ(failed.status_code, 500);
  EXPECT_FALSE(failed.error);
  EXPECT_FALSE(failed.succeeded());
  EXPECT_TRUE(client.send(request_to(receiver.url())).succeeded());  // any 2xx
  EXPECT_EQ(receiver.requests().size(), 3u);
}

TEST(WebhookClient, SlowReceiverTimesOut) {
  HttpsReceiver receiver;
  receiver.plan({{200, 3000}});
  hooks::DeliveryClient client(options_trusting(receiver, 500));
  const auto result = client.send(request_to(receiver.url()));
  EXPECT_FALSE(result.succeeded());
  EXPECT_EQ(result.error.value_or(""), "timed out after 500 ms");
  EXPECT_GE(result.latency_ms, 450);
  EXPECT_LT(result.latency_ms, 2500);
}

TEST(WebhookClient, ReceiverDownIsAConnectionError) {
  HttpsReceiver receiver;
  receiver.set_down(true);
  hooks::DeliveryClient client(options_trusting(receiver, 2000));
  const auto result = client.send(request_to(receiver.url()));
  EXPECT_EQ(result.error.value_or(""), "could not connect");
  EXPECT_FALSE(result.status_code);
  receiver.set_down(false);
  EXPECT_TRUE(client.send(request_to(receiver.url())).succeeded());
}

// "localhost" resolves to a loopback address: refused before any connection is made when
// private targets are not allowed (live mode, or test mode with the operator setting off).
TEST(WebhookClient, LoopbackNameIsRefusedBeforeConnecting) {
  HttpsReceiver receiver;
  hooks::DeliveryClient client(options_trusting(receiver, 2000));
  const auto refused = client.send(request_to(receiver.url("/hooks", "localhost"), false));
  EXPECT_FALSE(refused.succeeded());
  EXPECT_NE(refused.error.value_or("").find("loopback"), std::string::npos) << *refused.error;
  EXPECT_EQ(receiver.connection_count(), 0u);
  // The same target is delivered when private targets are allowed.
  EXPECT_TRUE(client.send(request_to(receiver.url("/hooks", "localhost"), true)).succeeded());
}

// The connect-time check on its own: with the pre-send check switched off, the socket callback
// still refuses the loopback address libcurl is about to connect to; no TCP connection happens.
TEST(WebhookClient, ConnectTimeCheckAloneRefusesPrivateAddresses) {
  HttpsReceiver receiver({"rebind.payrail.test"});
  auto options = options_trusting(receiver, 2000);
  options.check_resolved_addresses = false;
  options.resolver = resolver_of({{"rebind.payrail.test", "127.0.0.1"},
                                  {"mapped.payrail.test", "::ffff:127.0.0.1"},
                                  {"localhost", "127.0.0.1"}});
  hooks::DeliveryClient client(options);
  for (const auto& url :
       {receiver.url("/hooks", "rebind.payrail.test"), receiver.url("/hooks", "127.0.0.1"),
        receiver.url("/hooks", "localhost"), receiver.url("/hooks", "2130706433")}) {
    const auto refused = client.send(request_to(url, false));
    EXPECT_EQ(refused.error.value_or("").rfind("connection refused by address policy: loopback", 0),
              0u)
        << url << ": " << refused.error.value_or("(none)");
  }
  EXPECT_EQ(receiver.connection_count(), 0u);
  const auto mapped = client.send(request_to(receiver.url("/hooks", "mapped.payrail.test"), false));
  EXPECT_EQ(mapped.error.value_or("").rfind("connection refused by address policy: loopback", 0),
            0u)
      << mapped.error.value_or("(none)");
  EXPECT_EQ(receiver.connection_count(), 0u);
}

// The name is resolved once by the injected resolver and pinned: libcurl never asks DNS (the
// .test name exists nowhere else), and TLS still verifies the certificate for the name.
TEST(WebhookClient, ResolvesOnceAndPinsTheCheckedAddress) {
  HttpsReceiver receiver({"hooks.payrail.test"});
  int calls = 0;
  auto options = options_trusting(receiver, 5000);
  options.resolver = resolver_of({{"hooks.payrail.test", "127.0.0.1"}}, &calls);
  hooks::DeliveryClient client(options);
  const auto result = client.send(request_to(receiver.url("/pinned", "hooks.payrail.test")));
  ASSERT_TRUE(result.succeeded()) << result.error.value_or("");
  EXPECT_EQ(calls, 1);
  ASSERT_EQ(receiver.requests().size(), 1u);
  EXPECT_EQ(receiver.requests()[0].header("host"),
            "hooks.payrail.test:" + std::to_string(receiver.port()));
  const auto refused =
      client.send(request_to(receiver.url("/pinned", "hooks.payrail.test"), false));
  EXPECT_NE(refused.error.value_or("").find("loopback address (127.0.0.1)"), std::string::npos);
  EXPECT_EQ(calls, 2);
  EXPECT_EQ(receiver.requests().size(), 1u);
}

// Consecutive deliveries to one endpoint ride one kept-alive connection (one TCP and TLS
// handshake, not one per delivery). A connection the receiver closed is replaced by a fresh one.
TEST(WebhookClient, ConsecutiveDeliveriesToOneEndpointShareAConnection) {
  HttpsReceiver receiver;
  hooks::DeliveryClient client(options_trusting(receiver, 5000));
  for (int i = 0; i < 3; ++i) {
    const auto result = client.send(request_for_endpoint(receiver.url(), "we_one"));
    ASSERT_TRUE(result.succeeded()) << result.error.value_or("");
  }
  EXPECT_EQ(receiver.requests().size(), 3u);
  EXPECT_EQ(receiver.connection_count(), 1u);
  receiver.set_down(true);  // drops the open connection
  receiver.set_down(false);
  const auto after = client.send(request_for_endpoint(receiver.url(), "we_one"));
  ASSERT_TRUE(after.succeeded()) << after.error.value_or("");
  EXPECT_EQ(receiver.requests().size(), 4u);
  EXPECT_EQ(receiver.connection_count(), 2u);
}

// A connection never crosses endpoints (another organization's or mode's endpoint may have the
// same URL), and a delivery with no endpoint named never keeps or reuses one.
TEST(WebhookClient, AConnectionServesOnlyItsOwnEndpoint) {
  HttpsReceiver receiver;
  hooks::DeliveryClient client(options_trusting(receiver, 5000));
  for (const auto* endpoint_id : {"we_a", "we_b", "we_a", "", ""}) {
    const auto result = client.send(request_for_endpoint(receiver.url(), endpoint_id));
    ASSERT_TRUE(result.succeeded()) << endpoint_id << ": " << result.error.value_or("");
  }
  EXPECT_EQ(receiver.connection_count(), 5u);
}

// Every delivery resolves the name again. When the kept connection's address is no longer among
// the answers (DNS rebinding), the delivery is not sent over it: a fresh connection to the new
// answer goes through the socket guard (here nothing listens there, so it cannot connect).
TEST(WebhookClient, ARebindingIsNeverServedByTheKeptConnection) {
  HttpsReceiver receiver({"hooks.payrail.test"});
  auto answer = std::make_shared<std::string>("127.0.0.1");
  auto options = options_trusting(receiver, 2000);
  options.resolver = [answer](const std::string&) -> model::Result<std::vector<hooks::IpAddress>> {
    return std::vector<hooks::IpAddress>{*hooks::parse_ipv4_numeric(*answer)};
  };
  hooks::DeliveryClient client(options);
  const auto url = receiver.url("/hooks", "hooks.payrail.test");
  ASSERT_TRUE(client.send(request_for_endpoint(url, "we_one")).succeeded());
  *answer = "127.0.0.2";
  const auto rebound = client.send(request_for_endpoint(url, "we_one"));
  EXPECT_EQ(rebound.error.value_or(""), "could not connect");
  EXPECT_EQ(receiver.requests().size(), 1u);
  *answer = "127.0.0.1";
  ASSERT_TRUE(client.send(request_for_endpoint(url, "we_one")).succeeded());
  EXPECT_EQ(receiver.requests().size(), 2u);
  EXPECT_EQ(receiver.connection_count(), 2u);
}

TEST(WebhookClient, CaFileWithoutCertificatesIsAnError) {
  char path[] = "/tmp/payrail-empty-ca-XXXXXX";
  const int fd = mkstemp(path);
  ASSERT_GE(fd, 0);
  close(fd);
  EXPECT_FALSE(hooks::TrustAnchors::load(path).ok());
  EXPECT_FALSE(hooks::TrustAnchors::load("/nonexistent/ca.pem").ok());
  std::remove(path);
  HttpsReceiver first;
  HttpsReceiver second;
  std::ofstream bundle("/tmp/payrail-two-ca.pem");
  bundle << std::ifstream(first.certificate_path()).rdbuf()
         << std::ifstream(second.certificate_path()).rdbuf();
  bundle.close();
  const auto anchors = hooks::TrustAnchors::load("/tmp/payrail-two-ca.pem");
  ASSERT_TRUE(anchors.ok());
  EXPECT_EQ((*anchors)->size(), 2u);
  std::remove("/tmp/payrail-two-ca.pem");
}

}  // namespace
}  // namespace payrail::testing
