// What the code calls impossible is an always-on check (schemas/model/common/invariant.h): a
// broken invariant stops the process with the invariant's name and where it was checked, in
// release builds too (this suite is built Release).
#include "schemas/model/common/invariant.h"

#include <gtest/gtest.h>

namespace payrail::model {
namespace {

TEST(Invariant, AHoldingInvariantLetsTheProcessGoOn) {
  int reached = 0;
  invariant(1 + 1 == 2, "arithmetic holds");
  ++reached;
  EXPECT_EQ(reached, 1);
}

TEST(InvariantDeathTest, ABrokenInvariantStopsTheProcessNamingIt) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_DEATH(invariant(false, "a lifecycle table has its creation row"),
               "invariant failed: a lifecycle table has its creation row \\(.*invariant_test.cc");
}

}  // namespace
}  // namespace payrail::model
