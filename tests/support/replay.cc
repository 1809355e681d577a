#include "tests/support/replay.h"

#include <chrono>
#include <exception>
#include <thread>
#include <utility>

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

std::string replay_from_zero(TestStack& stack, const std::string& topic, const std::string& role) {
  stack.stop(role);
  const auto replayed = reset_to_offset_zero(stack, topic);
  stack.start(role);
  if (replayed <= 0) return topic + " had nothing to replay (" + std::to_string(replayed) + ")";
  const auto lag = lag_after_replay(stack, topic);
  return lag == "0\n" ? "" : topic + " was not replayed to the end: lag " + lag;
}

StoppedRole::StoppedRole(TestStack& stack, std::string role)
    : stack_(stack), role_(std::move(role)) {
  stack_.stop(role_);
}

StoppedRole::~StoppedRole() {
  if (stopped_) start();
}

void StoppedRole::start() {
  stack_.start(role_);
  stopped_ = false;
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
