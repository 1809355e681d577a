// What the benchmarks built on the test stack share: how long they wait for the work to drain,
// their settings from the environment, and one definition of a percentile, so their figures
// compare.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <vector>

namespace payrail::testing {

inline constexpr auto kBenchDrainTimeout = std::chrono::minutes(10);

// An integer setting from the environment; `fallback` when unset or empty.
inline int env_int(const char* name, int fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::atoi(value) : fallback;
}

// The nearest-rank percentile (`fraction` 0 to 1) of `values`; 0 for none.
inline double percentile(std::vector<double> values, double fraction) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const auto index =
      static_cast<std::size_t>(fraction * static_cast<double>(values.size() - 1) + 0.5);
  return values[std::min(index, values.size() - 1)];
}

}  // namespace payrail::testing
