// SSRF rules for webhook targets: URL validation, classification of every address form, and
// numeric IPv4 host spellings read as the address they denote.
#include "infra/adapters/webhooks/ssrf.h"
#include "tests/support/ssrf_forms.h"

#include <gtest/gtest.h>
#include <netinet/in.h>

#include <cstring>

namespace payrail::infra::webhooks {
namespace {

AddressClass class_of(const std::string& text) {
  const auto v6 = parse_ipv6(text);
  if (v6) return classify(*v6);
  const auto v4 = parse_ipv4_numeric(text);
  if (!v4) ADD_FAILURE() << "not an address: " << text;
  return v4 ? classify(*v4) : AddressClass::global;
}

struct Case {
  const char* address;
  AddressClass expected;
};

TEST(WebhookSsrf, ClassifiesIpv4Ranges) {
  const Case cases[] = {
      {"127.0.0.1", AddressClass::loopback},
      {"127.255.255.254", AddressClass::loopback},
      {"10.0.0.1", AddressClass::private_network},
      {"10.255.255.255", AddressClass::private_network},
      {"172.16.0.1", AddressClass::private_network},
      {"172.31.255.255", AddressClass::private_network},
      {"172.15.255.255", AddressClass::global},
      {"172.32.0.1", AddressClass::global},
      {"192.168.1.1", AddressClass::private_network},
      {"100.64.0.1", AddressClass::private_network},
      {"100.127.255.255", AddressClass::private_network},
      {"100.128.0.1", AddressClass::global},
      {"100.63.255.255", AddressClass::global},
      {"169.254.169.254", AddressClass::link_local},
      {"224.0.0.1", AddressClass::multicast},
      {"239.255.255.250", AddressClass::multicast},
      {"0.0.0.0", AddressClass::unspecified},
      {"0.1.2.3", AddressClass::unspecified},
      {"255.255.255.255", AddressClass::broadcast},
      {"240.0.0.1", AddressClass::reserved},
      {"192.0.2.1", AddressClass::reserved},
      {"198.18.0.1", AddressClass::reserved},
      {"203.0.113.9", AddressClass::reserved},
      {"8.8.8.8", AddressClass::global},
      {"93.184.216.34", AddressClass::global},
      {"1.1.1.1", AddressClass::global},
  };
  for (const auto& c : cases) EXPECT_EQ(class_of(c.address), c.expected) << c.address;
}

TEST(WebhookSsrf, ClassifiesIpv6IncludingEmbeddedIpv4Forms) {
  const Case cases[] = {
      {"::1", AddressClass::loopback},
      {"::", AddressClass::unspecified},
      {"fc00::1", AddressClass::private_network},
      {"fd12:3456:789a::1", AddressClass::private_network},
      {"fe80::1", AddressClass::link_local},
      {"febf:ffff::1", AddressClass::link_local},
      {"fec0::1", AddressClass::private_network},
      {"ff02::1", AddressClass::multicast},
      {"ff05::1:3", AddressClass::multicast},
      // IPv4-mapped, in both spellings.
      {"::ffff:127.0.0.1", AddressClass::loopback},
      {"::ffff:7f00:1", AddressClass::loopback},
      {"::ffff:10.0.0.1", AddressClass::private_network},
      {"::ffff:169.254.169.254", AddressClass::link_local},
      {"::ffff:224.0.0.1", AddressClass::multicast},
      {"::ffff:0.0.0.0", AddressClass::unspecified},
      {"::ffff:255.255.255.255", AddressClass::broadcast},
      {"::ffff:8.8.8.8", AddressClass::global},
      // IPv4-compatible (deprecated), NAT64 and 6to4 embed an IPv4 address too.
      {"::127.0.0.1", AddressClass::loopback},
      {"::10.1.2.3", AddressClass::private_network},
      {"::169.254.0.1", AddressClass::link_local},
      {"64:ff9b::7f00:1", AddressClass::loopback},
      {"64:ff9b::192.168.0.1", AddressClass::private_network},
      {"64:ff9b::8.8.8.8", AddressClass::global},
      {"64:ff9b:1::1", AddressClass::private_network},
      {"2002:7f00:1::1", AddressClass::loopback},
      {"2002:a00:1::", AddressClass::private_network},
      {"2002:808:808::1", AddressClass::global},
      {"2001:db8::1", AddressClass::reserved},
      {"2001::1", AddressClass::reserved},  // Teredo
      {"100::1", AddressClass::reserved},
      {"2606:4700:4700::1111", AddressClass::global},
      {"2a00:1450:4001:81b::200e", AddressClass::global},
  };
  for (const auto& c : cases) EXPECT_EQ(class_of(c.address), c.expected) << c.address;
}

TEST(WebhookSsrf, NumericIpv4SpellingsDenoteTheirAddress) {
  const std::pair<const char*, const char*> cases[] = {
      {"2130706433", "127.0.0.1"},
      {"0x7f000001", "127.0.0.1"},
      {"0X7F000001", "127.0.0.1"},
      {"0177.0.0.1", "127.0.0.1"},
      {"0177.0.0.01", "127.0.0.1"},
      {"127.1", "127.0.0.1"},
      {"127.0.1", "127.0.0.1"},
      {"0x7f.1", "127.0.0.1"},
      {"017700000001", "127.0.0.1"},
      {"0x7f.0.0.0x1", "127.0.0.1"},
      {"0", "0.0.0.0"},
      {"0x", "0.0.0.0"},
      {"167772161", "10.0.0.1"},
      {"0xa9fea9fe", "169.254.169.254"},
      {"3232235777", "192.168.1.1"},
      {"4294967295", "255.255.255.255"},
      {"8.8.8.8", "8.8.8.8"},
  };
  for (const auto& [text, dotted] : cases) {
    const auto address = parse_ipv4_numeric(text);
    ASSERT_TRUE(address) << text;
    EXPECT_EQ(address->to_string(), dotted) << text;
  }
  for (const char* invalid : {"4294967296", "1.2.3.256", "256.1.1.1", "1.2.65536", "08", "0x1g",
                              "1..2", "1.2.3.4.5", ".1.2.3", "1.2.3.", "", "abc", "1.2.3.-4"}) {
    EXPECT_FALSE(parse_ipv4_numeric(invalid)) << invalid;
  }
}

TEST(WebhookSsrf, ParsesValidUrls) {
  auto url = parse_webhook_url("https://Hooks.Example.COM:8443/a/b?token=x&y=1");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->host, "hooks.example.com");
  EXPECT_EQ(url->port, 8443);
  EXPECT_EQ(url->path_and_query, "/a/b?token=x&y=1");
  EXPECT_FALSE(url->literal);
  EXPECT_EQ(url->request_url(), "https://hooks.example.com:8443/a/b?token=x&y=1");

  url = parse_webhook_url("HTTPS://example.com");
  ASSERT_TRUE(url.ok());
  EXPECT_EQ(url->port, 443);
  EXPECT_EQ(url->path_and_query, "/");
  EXPECT_EQ(parse_webhook_url("https://example.com?x=1")->path_and_query, "/?x=1");
  EXPECT_EQ(parse_webhook_url("https://example.com./x")->host, "example.com");

  url = parse_webhook_url("https://0x7f000001:9000/x");
  ASSERT_TRUE(url.ok());
  ASSERT_TRUE(url->literal);
  EXPECT_EQ(url->host, "127.0.0.1");
  EXPECT_EQ(url->request_url(), "https://127.0.0.1:9000/x");

  url = parse_webhook_url("https://[::FFFF:127.0.0.1]/x");
  ASSERT_TRUE(url.ok());
  ASSERT_TRUE(url->literal && url->literal->v6);
  EXPECT_EQ(url->url_host(), "[::ffff:127.0.0.1]");
  EXPECT_EQ(url->request_url(), "https://[::ffff:127.0.0.1]:443/x");
}

TEST(WebhookSsrf, RejectsInvalidUrlsWithParamUrl) {
  const std::string too_long = "https://example.com/" + std::string(2030, 'a');
  ASSERT_GT(too_long.size(), kUrlLengthMax);
  for (const std::string& text : {std::string("http://example.com/"),
                                  std::string("ftp://example.com/"),
                                  std::string("https://"),
                                  std::string("https:///path"),
                                  std::string("https://:443/"),
                                  std::string("//example.com/"),
                                  std::string("example.com"),
                                  std::string("https://user:pw@example.com/"),
                                  std::string("https://example.com@127.0.0.1/"),
                                  std::string("https://exa mple.com/"),
                                  std::string("https://example.com/#fragment"),
                                  std::string("https://example.com:0/"),
                                  std::string("https://example.com:65536/"),
                                  std::string("https://example.com:/"),
                                  std::string("https://example.com:44a/"),
                                  std::string("https://[::1/"),
                                  std::string("https://[fe80::1%25eth0]/"),
                                  std::string("https://[1.2.3.4]/"),
                                  std::string("https://1.2.3.999/"),
                                  std::string("https://1.2.3.4.5/"),
                                  std::string("https://-bad.example.com/"),
                                  std::string("https://bad-.example.com/"),
                                  std::string("https://a..b/"),
                                  std::string("https://ex\xC3\xA4mple.com/"),
                                  std::string("https:\\\\example.com\\"),
                                  std::string("https://example.com/\x01"),
                                  std::string("https://exa%6dple.com/"),
                                  std::string("https://") + std::string(64, 'a') + ".com/",
                                  too_long}) {
    const auto url = parse_webhook_url(text);
    ASSERT_FALSE(url.ok()) << text;
    EXPECT_EQ(url.error().param, "url") << text;
  }
  EXPECT_TRUE(parse_webhook_url("https://example.com/" + std::string(2028, 'a')).ok());
}

// Every form the live-mode registration test sends: each is refused by the address check.
TEST(WebhookSsrf, EveryForbiddenLiteralFormIsRefused) {
  using payrail::testing::kForbiddenWebhookNameCount;
  using payrail::testing::kForbiddenWebhookUrls;
  for (std::size_t i = kForbiddenWebhookNameCount; i < kForbiddenWebhookUrls.size(); ++i) {
    const char* text = kForbiddenWebhookUrls[i];
    const auto url = parse_webhook_url(text);
    ASSERT_TRUE(url.ok()) << text;
    const auto addresses = resolve_target(*url, [](const std::string&) {
      ADD_FAILURE() << "a literal host must not be looked up";
      return model::Result<std::vector<IpAddress>>(std::vector<IpAddress>{});
    });
    ASSERT_TRUE(addresses.ok()) << text;
    const auto status = check_addresses(*addresses, false);
    ASSERT_FALSE(status.ok()) << text;
    EXPECT_EQ(status.error().param, "url");
    EXPECT_TRUE(check_addresses(*addresses, true).ok()) << text;
  }
}

TEST(WebhookSsrf, NamesAreCheckedOnEveryResolvedAddress) {
  const auto url = *parse_webhook_url("https://hooks.example.com/");
  const auto resolver = [](const std::string& host) -> model::Result<std::vector<IpAddress>> {
    EXPECT_EQ(host, "hooks.example.com");
    return std::vector<IpAddress>{*parse_ipv4_numeric("93.184.216.34"),
                                  *parse_ipv6("::ffff:192.168.0.7")};
  };
  const auto addresses = resolve_target(url, resolver);
  ASSERT_TRUE(addresses.ok());
  const auto status = check_addresses(*addresses, false);
  ASSERT_FALSE(status.ok());  // one private answer is enough to refuse
  EXPECT_NE(status.error().message.find("private"), std::string::npos);
  EXPECT_TRUE(check_addresses({*parse_ipv4_numeric("93.184.216.34")}, false).ok());
  EXPECT_FALSE(check_addresses({}, true).ok());
}

TEST(WebhookSsrf, LocalhostResolvesToLoopback) {
  const auto addresses = system_resolve("localhost");
  ASSERT_TRUE(addresses.ok());
  ASSERT_FALSE(addresses->empty());
  for (const auto& address : *addresses) EXPECT_EQ(classify(address), AddressClass::loopback);
  EXPECT_FALSE(check_addresses(*addresses, false).ok());
}

TEST(WebhookSsrf, SocketAddressesConvert) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  v4.sin_addr.s_addr = htonl(0x7F000001);
  const auto a = from_sockaddr(reinterpret_cast<sockaddr*>(&v4), sizeof(v4));
  ASSERT_TRUE(a);
  EXPECT_EQ(a->to_string(), "127.0.0.1");
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  const auto mapped = *parse_ipv6("::ffff:10.0.0.1");
  std::memcpy(&v6.sin6_addr, mapped.bytes.data(), 16);
  const auto b = from_sockaddr(reinterpret_cast<sockaddr*>(&v6), sizeof(v6));
  ASSERT_TRUE(b);
  EXPECT_EQ(classify(*b), AddressClass::private_network);
  EXPECT_FALSE(from_sockaddr(reinterpret_cast<sockaddr*>(&v4), 4));
}

TEST(WebhookSsrf, PrivateTargetsOnlyInTestModeWhenAllowed) {
  EXPECT_TRUE(private_targets_allowed(model::Mode::test, true));
  EXPECT_FALSE(private_targets_allowed(model::Mode::test, false));
  EXPECT_FALSE(private_targets_allowed(model::Mode::live, true));
  EXPECT_FALSE(private_targets_allowed(model::Mode::live, false));
}

}  // namespace
}  // namespace payrail::infra::webhooks
