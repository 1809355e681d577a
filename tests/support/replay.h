// What the fault tests' replays of a topic from offset 0 share: reset the consumer group's
// offsets (proving there is something to replay), and wait until the group has consumed to the
// end again.
#pragma once

#include <string>

#include "tests/support/stack.h"

namespace payrail::testing {

// `payrail offsets-reset --topic` for the topic's designated group (its role stopped); returns
// the lag that leaves, the messages to replay, or -1 when a command failed.
long reset_to_offset_zero(const TestStack& stack, const std::string& topic);

// Polls `payrail consumer-lag` until it is 0 or a minute has passed; returns the last lag read
// ("0\n" once the topic was replayed to the end).
std::string lag_after_replay(const TestStack& stack, const std::string& topic);

// Replays `topic` from offset 0 to `role`: stops it, rewinds its group, starts it and waits until
// the group has consumed to the end. Returns what went wrong, or "" when it did.
std::string replay_from_zero(TestStack& stack, const std::string& topic, const std::string& role);

// Keeps a role stopped for a scope, so that work waits before it (payouts awaiting settlement),
// and starts it again when the scope ends, also when an assertion ends a test early.
class StoppedRole {
 public:
  StoppedRole(TestStack& stack, std::string role);
  ~StoppedRole();
  void start();  // before the scope ends

 private:
  TestStack& stack_;
  std::string role_;
  bool stopped_ = true;
};

}  // namespace payrail::testing
