#include "infra/adapters/webhooks/ssrf.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>

#include "schemas/model/common/hex.h"

namespace payrail::infra::webhooks {
namespace {

struct Ipv4Range {
  std::uint32_t network;
  int prefix_bits;
  AddressClass address_class;
};

constexpr std::uint32_t octets(std::uint32_t a, std::uint32_t b, std::uint32_t c, std::uint32_t d) {
  return (a << 24) | (b << 16) | (c << 8) | d;
}

// Checked in order; the first match wins (255.255.255.255 before 240/4).
constexpr std::array kIpv4Ranges{
    Ipv4Range{octets(0, 0, 0, 0), 8, AddressClass::unspecified},
    Ipv4Range{octets(127, 0, 0, 0), 8, AddressClass::loopback},
    Ipv4Range{octets(10, 0, 0, 0), 8, AddressClass::private_network},
    Ipv4Range{octets(172, 16, 0, 0), 12, AddressClass::private_network},
    Ipv4Range{octets(192, 168, 0, 0), 16, AddressClass::private_network},
    Ipv4Range{octets(100, 64, 0, 0), 10, AddressClass::private_network},  // CGNAT
    Ipv4Range{octets(169, 254, 0, 0), 16, AddressClass::link_local},
    Ipv4Range{octets(224, 0, 0, 0), 4, AddressClass::multicast},
    Ipv4Range{octets(255, 255, 255, 255), 32, AddressClass::broadcast},
    Ipv4Range{octets(240, 0, 0, 0), 4, AddressClass::reserved},
    Ipv4Range{octets(192, 0, 0, 0), 24, AddressClass::reserved},
    Ipv4Range{octets(192, 0, 2, 0), 24, AddressClass::reserved},
    Ipv4Range{octets(192, 88, 99, 0), 24, AddressClass::reserved},
    Ipv4Range{octets(198, 18, 0, 0), 15, AddressClass::reserved},
    Ipv4Range{octets(198, 51, 100, 0), 24, AddressClass::reserved},
    Ipv4Range{octets(203, 0, 113, 0), 24, AddressClass::reserved},
};

AddressClass classify_v4(std::uint32_t value) {
  for (const auto& range : kIpv4Ranges) {
    const std::uint32_t mask =
        range.prefix_bits == 0 ? 0 : ~std::uint32_t{0} << (32 - range.prefix_bits);
    if ((value & mask) == range.network) return range.address_class;
  }
  return AddressClass::global;
}

bool has_prefix(const IpAddress& address, std::initializer_list<std::uint8_t> prefix_bytes,
                int prefix_bits) {
  int bit = 0;
  for (const auto byte : prefix_bytes) {
    const int remaining = prefix_bits - bit;
    if (remaining <= 0) break;
    const std::uint8_t mask =
        remaining >= 8 ? 0xFF : static_cast<std::uint8_t>(0xFF << (8 - remaining));
    if ((address.bytes[bit / 8] & mask) != (byte & mask)) return false;
    bit += 8;
  }
  return true;
}

std::uint32_t embedded_v4(const IpAddress& address, std::size_t offset) {
  return (std::uint32_t{address.bytes[offset]} << 24) |
         (std::uint32_t{address.bytes[offset + 1]} << 16) |
         (std::uint32_t{address.bytes[offset + 2]} << 8) | address.bytes[offset + 3];
}

AddressClass classify_v6(const IpAddress& address) {
  const auto& b = address.bytes;
  const bool upper_80_zero = std::all_of(b.begin(), b.begin() + 10, [](auto x) { return x == 0; });
  if (upper_80_zero && b[10] == 0xFF && b[11] == 0xFF) return classify_v4(embedded_v4(address, 12));
  if (upper_80_zero && b[10] == 0 && b[11] == 0) {
    const auto low = embedded_v4(address, 12);
    if (low == 0) return AddressClass::unspecified;
    if (low == 1) return AddressClass::loopback;
    return classify_v4(low);  // IPv4-compatible ::a.b.c.d (deprecated, still routable by some)
  }
  if (has_prefix(address, {0x00, 0x64, 0xFF, 0x9B, 0, 0, 0, 0, 0, 0, 0, 0}, 96)) {
    return classify_v4(embedded_v4(address, 12));  // NAT64 well-known prefix
  }
  if (has_prefix(address, {0x00, 0x64, 0xFF, 0x9B, 0x00, 0x01}, 48)) {
    return AddressClass::private_network;  // local-use NAT64
  }
  if (has_prefix(address, {0x20, 0x02}, 16)) return classify_v4(embedded_v4(address, 2));  // 6to4
  if (has_prefix(address, {0xFC}, 7)) return AddressClass::private_network;
  if (has_prefix(address, {0xFE, 0x80}, 10)) return AddressClass::link_local;
  if (has_prefix(address, {0xFE, 0xC0}, 10)) return AddressClass::private_network;  // site-local
  if (has_prefix(address, {0xFF}, 8)) return AddressClass::multicast;
  if (has_prefix(address, {0x20, 0x01, 0x0D, 0xB8}, 32)) return AddressClass::reserved;
  if (has_prefix(address, {0x20, 0x01, 0x00}, 23)) return AddressClass::reserved;  // incl. Teredo
  if (!has_prefix(address, {0x20}, 3)) return AddressClass::reserved;  // not global unicast
  return AddressClass::global;
}

// One inet_aton part: 0x hex, leading-zero octal, or decimal. Bounded to 32 bits.
std::optional<std::uint64_t> parse_ipv4_part(std::string_view part) {
  if (part.empty()) return std::nullopt;
  int base = 10;
  if (part.size() >= 2 && part[0] == '0' && (part[1] == 'x' || part[1] == 'X')) {
    base = 16;
    part.remove_prefix(2);
    if (part.empty()) return 0;  // "0x" alone is zero, as resolvers read it
  } else if (part.size() > 1 && part[0] == '0') {
    base = 8;
    part.remove_prefix(1);
  }
  std::uint64_t value = 0;
  for (const char c : part) {
    const int digit = model::hex_digit_value(c);
    if (digit < 0 || digit >= base) return std::nullopt;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
    if (value > 0xFFFFFFFFull) return std::nullopt;
  }
  return value;
}

// WHATWG "ends in a number": the last label is all digits or 0x-hex. Such a host must be a valid
// IPv4 address; it is never looked up as a name.
bool ends_in_number(std::string_view host) {
  const auto dot = host.rfind('.');
  const auto last = dot == std::string_view::npos ? host : host.substr(dot + 1);
  if (last.empty()) return false;
  if (std::all_of(last.begin(), last.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    return true;
  }
  if (last.size() >= 2 && last[0] == '0' && (last[1] == 'x' || last[1] == 'X')) {
    return std::all_of(last.begin() + 2, last.end(),
                       [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; });
  }
  return false;
}

bool valid_hostname(std::string_view host) {
  if (host.empty() || host.size() > kHostLengthMax) return false;
  std::size_t label_length = 0;
  char previous = '.';
  for (const char c : host) {
    if (c == '.') {
      if (label_length == 0 || previous == '-') return false;
      label_length = 0;
    } else {
      const bool allowed = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
      if (!allowed || (label_length == 0 && c == '-')) return false;
      if (++label_length > kHostLabelLengthMax) return false;
    }
    previous = c;
  }
  return label_length > 0 && previous != '-';
}

model::Error url_error(std::string message) {
  return model::bad_request(std::move(message), "url");
}

// Splits "host[:port]" or "[v6][:port]" into the URL's host fields and port.
model::Status parse_authority(std::string_view authority, WebhookUrl& url) {
  std::string_view host = authority;
  std::string_view port;
  if (!authority.empty() && authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return url_error("url has an unterminated IPv6 host.");
    host = authority.substr(1, close - 1);
    const auto rest = authority.substr(close + 1);
    if (!rest.empty() && rest.front() != ':') return url_error("url has a malformed host.");
    if (!rest.empty()) port = rest.substr(1), url.port = -1;
    url.literal = parse_ipv6(host);
    if (!url.literal) return url_error("url has an invalid IPv6 host.");
    url.host = url.literal->to_string();
  } else {
    const auto colon = authority.find(':');
    if (colon != std::string_view::npos)
      host = authority.substr(0, colon), port = authority.substr(colon + 1), url.port = -1;
    std::string lower(host);
    std::transform(lower.begin(), lower.end(), lower.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!lower.empty() && lower.back() == '.') lower.pop_back();  // "example.com." is absolute
    if (lower.empty()) return url_error("url must have a host.");
    if (ends_in_number(lower)) {
      url.literal = parse_ipv4_numeric(lower);
      if (!url.literal) return url_error("url has an invalid IPv4 host.");
      url.host = url.literal->to_string();
    } else {
      if (!valid_hostname(lower)) return url_error("url has an invalid host name.");
      url.host = std::move(lower);
    }
  }
  if (url.port == -1) {
    int value = 0;
    const bool digits =
        !port.empty() && port.size() <= 5 &&
        std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; });
    for (const char c : port) value = digits ? value * 10 + (c - '0') : 0;
    if (!digits || value < 1 || value > 65535) return url_error("url has an invalid port.");
    url.port = value;
  }
  return model::ok_status();
}

}  // namespace

IpAddress IpAddress::v4(std::uint32_t host_order) {
  IpAddress address;
  address.bytes[0] = static_cast<std::uint8_t>(host_order >> 24);
  address.bytes[1] = static_cast<std::uint8_t>(host_order >> 16);
  address.bytes[2] = static_cast<std::uint8_t>(host_order >> 8);
  address.bytes[3] = static_cast<std::uint8_t>(host_order);
  return address;
}

std::uint32_t IpAddress::v4_value() const {
  return embedded_v4(*this, 0);
}

std::string IpAddress::to_string() const {
  char text[INET6_ADDRSTRLEN] = {};
  inet_ntop(v6 ? AF_INET6 : AF_INET, bytes.data(), text, sizeof(text));
  return text;
}

std::string_view address_class_name(AddressClass address_class) {
  switch (address_class) {
    case AddressClass::global:
      return "global";
    case AddressClass::loopback:
      return "loopback";
    case AddressClass::private_network:
      return "private";
    case AddressClass::link_local:
      return "link-local";
    case AddressClass::multicast:
      return "multicast";
    case AddressClass::unspecified:
      return "unspecified";
    case AddressClass::broadcast:
      return "broadcast";
    case AddressClass::reserved:
      return "reserved";
  }
  return "reserved";
}

AddressClass classify(const IpAddress& address) {
  return address.v6 ? classify_v6(address) : classify_v4(address.v4_value());
}

std::optional<IpAddress> parse_ipv4_numeric(std::string_view text) {
  constexpr std::size_t kPartsMax = 4;
  std::vector<std::uint64_t> parts;
  while (parts.size() <= kPartsMax) {
    const auto dot = text.find('.');
    const auto value = parse_ipv4_part(text.substr(0, dot));
    if (!value) return std::nullopt;
    parts.push_back(*value);
    if (dot == std::string_view::npos) break;
    text.remove_prefix(dot + 1);
  }
  if (parts.empty() || parts.size() > kPartsMax) return std::nullopt;
  std::uint32_t address = 0;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i] > 0xFF) return std::nullopt;
    address |= static_cast<std::uint32_t>(parts[i]) << (24 - 8 * i);
  }
  const auto last_bits = 8 * (kPartsMax + 1 - parts.size());
  const auto last = parts.back();
  if (last_bits < 32 && last >= (std::uint64_t{1} << last_bits)) return std::nullopt;
  return IpAddress::v4(address | static_cast<std::uint32_t>(last));
}

std::optional<IpAddress> parse_ipv6(std::string_view text) {
  if (text.empty() || text.size() >= INET6_ADDRSTRLEN || text.find('%') != std::string_view::npos) {
    return std::nullopt;
  }
  IpAddress address;
  address.v6 = true;
  const std::string copy(text);
  if (inet_pton(AF_INET6, copy.c_str(), address.bytes.data()) != 1) return std::nullopt;
  return address;
}

std::optional<IpAddress> from_sockaddr(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return std::nullopt;
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    sockaddr_in v4{};
    std::memcpy(&v4, address, sizeof(v4));
    return IpAddress::v4(ntohl(v4.sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    sockaddr_in6 v6{};
    std::memcpy(&v6, address, sizeof(v6));
    IpAddress result;
    result.v6 = true;
    std::memcpy(result.bytes.data(), &v6.sin6_addr, 16);
    return result;
  }
  return std::nullopt;
}

std::string WebhookUrl::url_host() const {
  return literal && literal->v6 ? "[" + host + "]" : host;
}

std::string WebhookUrl::request_url() const {
  return "https://" + url_host() + ":" + std::to_string(port) + path_and_query;
}

model::Result<WebhookUrl> parse_webhook_url(std::string_view text) {
  if (text.size() > kUrlLengthMax) return url_error("url must be at most 2048 characters.");
  for (const char c : text) {
    if (c <= 0x20 || c >= 0x7F || c == '\\') {
      return url_error(
          "url must be ASCII without spaces or backslashes (use punycode for "
          "international names).");
    }
  }
  constexpr std::string_view kScheme = "https://";
  if (text.size() < kScheme.size() ||
      !std::equal(kScheme.begin(), kScheme.end(), text.begin(), [](char a, char b) {
        return a == std::tolower(static_cast<unsigned char>(b));
      })) {
    return url_error("url must start with https://.");
  }
  if (text.find('#') != std::string_view::npos) return url_error("url must not have a fragment.");
  const std::string normalized = std::string(kScheme) + std::string(text.substr(kScheme.size()));
  text.remove_prefix(kScheme.size());
  const auto authority_end = text.find_first_of("/?");
  const auto authority = text.substr(0, authority_end);
  if (authority.find('@') != std::string_view::npos) {
    return url_error("url must not contain credentials.");
  }
  WebhookUrl url;
  if (auto status = parse_authority(authority, url); !status.ok()) return status.error();
  url.path_and_query =
      authority_end == std::string_view::npos ? "/" : std::string(text.substr(authority_end));
  if (url.path_and_query.front() == '?') url.path_and_query.insert(0, "/");
  url.text = normalized;
  return url;
}

model::Result<std::vector<IpAddress>> system_resolve(const std::string& host) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const int code = getaddrinfo(host.c_str(), nullptr, &hints, &found);
  if (code != 0) {
    return model::bad_request(
        std::string("url's host could not be resolved (") + gai_strerror(code) + ").", "url");
  }
  std::vector<IpAddress> addresses;
  for (auto* entry = found; entry != nullptr && addresses.size() < kResolvedAddressesMax;
       entry = entry->ai_next) {
    const auto address = from_sockaddr(entry->ai_addr, entry->ai_addrlen);
    if (address && std::find(addresses.begin(), addresses.end(), *address) == addresses.end()) {
      addresses.push_back(*address);
    }
  }
  freeaddrinfo(found);
  return addresses;
}

model::Result<std::vector<IpAddress>> resolve_target(const WebhookUrl& url,
                                                     const Resolver& resolver) {
  if (url.literal) return std::vector<IpAddress>{*url.literal};
  return resolver(url.host);
}

model::Status check_addresses(const std::vector<IpAddress>& addresses, bool allow_private) {
  if (addresses.empty()) return url_error("url's host has no address.");
  if (allow_private) return model::ok_status();
  for (const auto& address : addresses) {
    const auto address_class = classify(address);
    if (is_forbidden(address_class)) {
      return url_error("url's host resolves to a " +
                       std::string(address_class_name(address_class)) + " address (" +
                       address.to_string() + "), which cannot receive webhooks.");
    }
  }
  return model::ok_status();
}

}  // namespace payrail::infra::webhooks
