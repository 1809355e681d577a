#include "infra/plumbing/log/log.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <mutex>

namespace payrail::infra::log {
namespace {

std::atomic<int> g_minimum_level{static_cast<int>(Level::info)};
std::string g_process = "payrail";
std::mutex g_write_mutex;

std::string_view level_name(Level level) {
  switch (level) {
    case Level::debug:
      return "debug";
    case Level::info:
      return "info";
    case Level::warn:
      return "warn";
    case Level::error:
      return "error";
  }
  return "info";
}

std::string utc_timestamp_now() {
  const auto now = std::chrono::system_clock::now();
  const auto seconds = std::chrono::system_clock::to_time_t(now);
  const auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm parts{};
  gmtime_r(&seconds, &parts);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", parts.tm_year + 1900,
                parts.tm_mon + 1, parts.tm_mday, parts.tm_hour, parts.tm_min, parts.tm_sec,
                static_cast<int>(millis));
  return buffer;
}

}  // namespace

void configure(std::string_view process, Level minimum_level) {
  g_process = std::string(process);
  g_minimum_level = static_cast<int>(minimum_level);
}

Level parse_level(std::string_view text) {
  if (text == "debug") return Level::debug;
  if (text == "warn") return Level::warn;
  if (text == "error") return Level::error;
  return Level::info;
}

void write(Level level, std::string_view event, std::initializer_list<Field> fields) {
  if (static_cast<int>(level) < g_minimum_level.load(std::memory_order_relaxed)) return;
  rapidjson::StringBuffer buffer;
  rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
  writer.StartObject();
  writer.Key("ts");
  const auto timestamp = utc_timestamp_now();
  writer.String(timestamp.data(), static_cast<rapidjson::SizeType>(timestamp.size()));
  writer.Key("level");
  const auto name = level_name(level);
  writer.String(name.data(), static_cast<rapidjson::SizeType>(name.size()));
  writer.Key("process");
  writer.String(g_process.data(), static_cast<rapidjson::SizeType>(g_process.size()));
  writer.Key("event");
  writer.String(event.data(), static_cast<rapidjson::SizeType>(event.size()));
  for (const auto& [key, value] : fields) {
    writer.Key(key.data(), static_cast<rapidjson::SizeType>(key.size()));
    writer.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
  }
  writer.EndObject();
  std::lock_guard lock(g_write_mutex);
  std::fprintf(stderr, "%s\n", buffer.GetString());
  std::fflush(stderr);
}

}  // namespace payrail::infra::log
