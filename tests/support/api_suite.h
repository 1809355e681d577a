// A test suite sharing one stack without workers (API, broker, database) and one organization:
// the common shape of the foundation end-to-end tests. `Suite` is the deriving fixture, so each
// suite gets a stack of its own.
#pragma once

#include <gtest/gtest.h>

#include "tests/support/stack.h"

namespace payrail::testing {

template <class Suite>
class ApiSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {}});
    organization_ = new TestOrganization(stack_->create_organization());
  }
  static void TearDownTestSuite() {
    delete organization_;
    delete stack_;
    organization_ = nullptr;
    stack_ = nullptr;
  }
  static const HttpClient& http() { return stack_->http(); }

  inline static TestStack* stack_ = nullptr;
  inline static TestOrganization* organization_ = nullptr;
};

}  // namespace payrail::testing
