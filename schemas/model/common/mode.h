#pragma once

#include <optional>
#include <string_view>

namespace payrail::model {

// Test and live data never meet: every query and message carries the mode.
enum class Mode { test, live };

inline std::string_view mode_name(Mode mode) {
  return mode == Mode::test ? "test" : "live";
}

inline std::optional<Mode> parse_mode(std::string_view text) {
  if (text == "test") return Mode::test;
  if (text == "live") return Mode::live;
  return std::nullopt;
}

}  // namespace payrail::model
