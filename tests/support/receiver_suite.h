// A test suite sharing one whole stack and one HTTPS webhook receiver the stack trusts: the
// common shape of the end-to-end tests that watch webhooks. `Suite` is the deriving fixture, so
// each suite gets a stack of its own; it may hide stack_options() to change the stack.
#pragma once

#include <gtest/gtest.h>

#include "tests/support/https_receiver.h"
#include "tests/support/stack.h"

namespace payrail::testing {

template <class Suite>
class ReceiverSuite : public ::testing::Test {
 protected:
  static StackOptions stack_options() {
    StackOptions options;  // (`return {};` here crashes GCC 12 in a class template)
    return options;
  }

  static void SetUpTestSuite() {
    receiver_ = new HttpsReceiver();
    auto options = Suite::stack_options();
    options.env["PAYRAIL_WEBHOOK_CA_FILE"] = receiver_->certificate_path();
    stack_ = new TestStack(std::move(options));
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete receiver_;
    stack_ = nullptr;
    receiver_ = nullptr;
  }

  inline static TestStack* stack_ = nullptr;
  inline static HttpsReceiver* receiver_ = nullptr;
};

}  // namespace payrail::testing
