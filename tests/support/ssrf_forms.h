// Webhook URLs whose host is, or spells, an address live mode must refuse (loopback, private,
// link-local, multicast, unspecified, broadcast, their IPv4-mapped/compatible IPv6 forms, and
// numeric IPv4 spellings). Shared by the SSRF unit test and the live registration test.
#pragma once

#include <array>
#include <cstddef>

namespace payrail::testing {

inline constexpr std::array kForbiddenWebhookUrls{
    "https://localhost/hooks",
    "https://LOCALHOST:8443/x",
    "https://127.0.0.1/",
    "https://127.0.0.1./",
    "https://10.0.0.1/",
    "https://172.16.5.4/",
    "https://192.168.1.1/",
    "https://100.64.0.1/",
    "https://169.254.169.254/latest/meta-data",
    "https://224.0.0.1/",
    "https://0.0.0.0/",
    "https://255.255.255.255/",
    "https://[::1]/",
    "https://[::]/",
    "https://[fc00::1]/",
    "https://[fd12::1]/",
    "https://[fe80::1]/",
    "https://[ff02::1]/",
    "https://[::ffff:127.0.0.1]/",
    "https://[::ffff:7f00:1]/",
    "https://[::ffff:10.0.0.1]/",
    "https://[::127.0.0.1]/",
    "https://[64:ff9b::7f00:1]/",
    "https://[2002:7f00:1::]/",
    "https://2130706433/",
    "https://0x7f000001/",
    "https://0177.0.0.1/",
    "https://127.1/",
    "https://0x7f.1/",
    "https://017700000001/",
    "https://0/",
    "https://0xa9fea9fe/",
};

// The forms above that are literal addresses (the first two are names that resolve to loopback).
inline constexpr std::size_t kForbiddenWebhookNameCount = 2;

}  // namespace payrail::testing
