#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace payrail::infra::time {

using TimePoint = std::chrono::system_clock::time_point;

inline TimePoint now_utc() {
  return std::chrono::system_clock::now();
}

// "2026-11-21T10:00:00Z" (second precision, UTC), the format of every timestamp in the API.
std::string format_utc(TimePoint point);

// Parses the API's timestamp format: "YYYY-MM-DDTHH:MM:SSZ", optionally with fractional seconds
// (dropped), from 1970-01-01T00:00:00Z to 9999-12-31T23:59:60Z; anything else is nullopt. Whole
// seconds, not TimePoint: system_clock counts nanoseconds in 64 bits and ends in 2262.
std::optional<std::chrono::sys_seconds> parse_utc(std::string_view text);

// The same format to the millisecond: fractional seconds are kept, truncated to milliseconds
// ("…:00.4249Z" is 424 ms). For the operator's commands, whose times pick Kafka messages
// (stamped in milliseconds): a time dropped to its second would take in up to 999 ms more.
std::optional<std::chrono::sys_time<std::chrono::milliseconds>> parse_utc_ms(std::string_view text);

}  // namespace payrail::infra::time
