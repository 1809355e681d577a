// Structured logging: one JSON object per line on stderr. Values are passed explicitly so that
// nothing (API keys, webhook secrets, account numbers) is logged by accident.
#pragma once

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>

namespace payrail::infra::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };

using Field = std::pair<std::string_view, std::string>;

// Set once at process start (PAYRAIL_LOG_LEVEL); `process` names the role in every line.
void configure(std::string_view process, Level minimum_level);
Level parse_level(std::string_view text);

void write(Level level, std::string_view event, std::initializer_list<Field> fields = {});
inline void debug(std::string_view event, std::initializer_list<Field> fields = {}) {
  write(Level::debug, event, fields);
}
inline void info(std::string_view event, std::initializer_list<Field> fields = {}) {
  write(Level::info, event, fields);
}
inline void warn(std::string_view event, std::initializer_list<Field> fields = {}) {
  write(Level::warn, event, fields);
}
inline void error(std::string_view event, std::initializer_list<Field> fields = {}) {
  write(Level::error, event, fields);
}

}  // namespace payrail::infra::log
