// A test suite whose tests share one TestDatabase and one Pool over it: the repository tests
// against the real PostgreSQL. A suite that needs rows before its tests (an organization) adds
// them in its own SetUpTestSuite after calling this one's.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>

#include "infra/plumbing/pg/pool.h"
#include "tests/support/database.h"

namespace payrail::testing {

template <std::size_t kConnections>
class DatabaseSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = kConnections});
  }
  static void TearDownTestSuite() {
    delete pool_;
    delete database_;
    pool_ = nullptr;
    database_ = nullptr;
  }

  static inline TestDatabase* database_ = nullptr;
  static inline infra::pg::Pool* pool_ = nullptr;
};

}  // namespace payrail::testing
