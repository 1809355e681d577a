#include "infra/plumbing/time/clock.h"

#include <cstdio>
#include <ctime>

namespace payrail::infra::time {
namespace {

// The sane range: 1970 onwards (nothing in Payrail is older; PostgreSQL has no year 0), four-digit
// years.
constexpr int kYearMin = 1970;
constexpr int kYearMax = 9999;

}  // namespace

std::string format_utc(TimePoint point) {
  const auto seconds = std::chrono::system_clock::to_time_t(point);
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02dZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec);
  return buffer;
}

std::optional<std::chrono::sys_seconds> parse_utc(std::string_view text) {
  // Strict shape check first: strptime alone accepts too much.
  constexpr std::string_view kShape = "dddd-dd-ddTdd:dd:dd";
  if (text.size() < kShape.size() + 1 || text.size() > 40 || text.back() != 'Z') {
    return std::nullopt;
  }
  for (std::size_t i = 0; i < kShape.size(); ++i) {
    const bool digit = text[i] >= '0' && text[i] <= '9';
    if (kShape[i] == 'd' ? !digit : text[i] != kShape[i]) return std::nullopt;
  }
  auto fraction = text.substr(kShape.size(), text.size() - kShape.size() - 1);
  if (!fraction.empty()) {
    if (fraction.size() < 2 || fraction[0] != '.') return std::nullopt;
    for (const char c : fraction.substr(1)) {
      if (c < '0' || c > '9') return std::nullopt;
    }
  }
  std::tm parts{};
  const std::string head(text.substr(0, kShape.size()));
  if (std::sscanf(head.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d", &parts.tm_year, &parts.tm_mon,
                  &parts.tm_mday, &parts.tm_hour, &parts.tm_min, &parts.tm_sec) != 6) {
    return std::nullopt;
  }
  if (parts.tm_year < kYearMin || parts.tm_year > kYearMax || parts.tm_mon < 1 ||
      parts.tm_mon > 12 || parts.tm_mday < 1 || parts.tm_mday > 31 || parts.tm_hour > 23 ||
      parts.tm_min > 59 || parts.tm_sec > 60) {
    return std::nullopt;
  }
  const int day = parts.tm_mday;
  parts.tm_year -= 1900;
  parts.tm_mon -= 1;
  const auto seconds = timegm(&parts);
  if (parts.tm_mday != day) return std::nullopt;  // 2026-02-31 normalizes to March
  // Not from_time_t: that converts to nanoseconds and overflows after 2262 (found by tests/fuzz).
  return std::chrono::sys_seconds(std::chrono::seconds(seconds));
}

std::optional<std::chrono::sys_time<std::chrono::milliseconds>> parse_utc_ms(
    std::string_view text) {
  const auto seconds = parse_utc(text);
  if (!seconds) return std::nullopt;
  // parse_utc checked the shape: digits after the '.' up to the 'Z', if any.
  constexpr std::size_t kFractionAt = 19;  // after "YYYY-MM-DDTHH:MM:SS"
  long milliseconds = 0;
  long scale = 100;
  for (std::size_t i = kFractionAt + 1; i + 1 < text.size() && scale > 0; ++i, scale /= 10) {
    milliseconds += (text[i] - '0') * scale;
  }
  return std::chrono::sys_time<std::chrono::milliseconds>(*seconds) +
         std::chrono::milliseconds(milliseconds);
}

}  // namespace payrail::infra::time
