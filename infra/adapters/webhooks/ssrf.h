// Where webhooks may be sent: URL parsing and the classification of target addresses.
//
// Live mode (and test mode unless the operator allows it) refuses targets that are loopback,
// private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7, fec0::/10), link-local, multicast,
// unspecified, broadcast or otherwise not globally routable, including the IPv6 forms that embed
// such an IPv4 address (mapped ::ffff:a.b.c.d, compatible ::a.b.c.d, NAT64 64:ff9b::/96, 6to4
// 2002::/16). A host spelled as a number ("2130706433", "0x7f000001", "0177.0.0.1", "127.1") is
// the IPv4 address it denotes, as every resolver library reads it; a host whose last label is a
// number but that is not a valid IPv4 address is refused outright.
//
// The check runs twice: on the resolved addresses before sending (and at registration), and on
// the address the socket actually connects to (delivery_client.cc), so a second DNS answer can
// never redirect a delivery.
#pragma once

#include <sys/socket.h>

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::webhooks {

constexpr std::size_t kUrlLengthMax = 2048;
constexpr std::size_t kHostLengthMax = 253;
constexpr std::size_t kHostLabelLengthMax = 63;
constexpr std::size_t kResolvedAddressesMax = 16;
constexpr int kDefaultHttpsPort = 443;

struct IpAddress {
  bool v6 = false;
  std::array<std::uint8_t, 16> bytes{};  // IPv4 uses the first four, network order

  static IpAddress v4(std::uint32_t host_order);
  std::uint32_t v4_value() const;  // host order; only for v4
  // Dotted quad, or the RFC 5952 text of an IPv6 address (no brackets).
  std::string to_string() const;
  bool operator==(const IpAddress& other) const = default;
};

enum class AddressClass {
  global,
  loopback,
  private_network,
  link_local,
  multicast,
  unspecified,
  broadcast,
  reserved,  // documentation, benchmarking, future use, discard: never a real receiver
};

std::string_view address_class_name(AddressClass address_class);
AddressClass classify(const IpAddress& address);
inline bool is_forbidden(AddressClass address_class) {
  return address_class != AddressClass::global;
}

// inet_aton forms: 1 to 4 parts, each decimal, octal (leading 0) or hex (0x); the last part
// fills the remaining bytes. nullopt if `text` is not such a number.
std::optional<IpAddress> parse_ipv4_numeric(std::string_view text);
// An IPv6 address without brackets; zone ids are refused.
std::optional<IpAddress> parse_ipv6(std::string_view text);
std::optional<IpAddress> from_sockaddr(const sockaddr* address, socklen_t length);

struct WebhookUrl {
  std::string host;                  // lowercase name, dotted IPv4, or IPv6 text
  std::optional<IpAddress> literal;  // set when the host is an address
  int port = kDefaultHttpsPort;
  std::string path_and_query;  // at least "/"
  // The URL as registered, with the scheme in lower case (schemes are case-insensitive,
  // RFC 3986 section 3.1): what is stored and shown.
  std::string text;

  // The URL actually requested: numeric hosts in canonical form, no fragment.
  std::string request_url() const;
  // The host as it appears in a URL and in CURLOPT_RESOLVE (IPv6 in brackets).
  std::string url_host() const;
};

// https://host[:port][/path][?query]; ASCII without spaces, no credentials, no fragment, at most
// kUrlLengthMax characters. Errors are bad_request with param "url".
model::Result<WebhookUrl> parse_webhook_url(std::string_view text);

using Resolver = std::function<model::Result<std::vector<IpAddress>>(const std::string& host)>;

// getaddrinfo; at most kResolvedAddressesMax distinct addresses.
model::Result<std::vector<IpAddress>> system_resolve(const std::string& host);

// The literal address, or what `resolver` answers for the name.
model::Result<std::vector<IpAddress>> resolve_target(const WebhookUrl& url,
                                                     const Resolver& resolver);

// Ok when every address may be targeted; a bad_request (param url) naming the first refused
// address and its class otherwise. An empty list is refused too.
model::Status check_addresses(const std::vector<IpAddress>& addresses, bool allow_private);

// Private targets are allowed only in test mode, and only when the operator turned it on.
inline bool private_targets_allowed(model::Mode mode, bool allow_private_targets_in_test) {
  return mode == model::Mode::test && allow_private_targets_in_test;
}

}  // namespace payrail::infra::webhooks
