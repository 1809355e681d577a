#include "tests/support/replay.h"

#include <chrono>
#include <exception>
#include <thread>

namespace payrail::testing {
namespace {

constexpr auto kReplayTimeout = std::chrono::seconds(60);
constexpr auto kPollInterval = std::chrono::milliseconds(200);

}  // namespace

long reset_to_offset_zero(const TestStack& stack, const std::string& topic) {
  if (stack.cli({"offsets-reset", "--topic", topic}).first != 0) return -1;
  const auto [code, lag] = stack.cli({"consumer-lag", "--topic", topic});
  if (code != 0) return -1;
  try {
    return std::stol(lag);
  } catch (const std::exception&) {
    return -1;
  }
}

std::string lag_after_replay(const TestStack& stack, const std::string& topic) {
  const auto deadline = std::chrono::steady_clock::now() + kReplayTimeout;
  std::string lag;
  do {
    std::this_thread::sleep_for(kPollInterval);
    lag = stack.cli({"consumer-lag", "--topic", topic}).second;
  } while (lag != "0\n" && std::chrono::steady_clock::now() < deadline);
  return lag;
}

}  // namespace payrail::testing
