#include "infra/plumbing/ids.h"

#include <gtest/gtest.h>

#include <chrono>
#include <regex>
#include <set>
#include <string>

namespace payrail::infra {
namespace {

using std::chrono::milliseconds;
using std::chrono::system_clock;

TEST(IdsTest, PrefixThenTwentyFourBase62Characters) {
  const std::string id = new_id("po_");
  EXPECT_TRUE(std::regex_match(id, std::regex("po_[0-9A-Za-z]{24}"))) << id;
}

TEST(IdsTest, TheFirstEightCharactersSpellTheMillisecondsSinceTheEpoch) {
  EXPECT_EQ(new_id("x_", system_clock::time_point{}).substr(2, 8), "00000000");
  EXPECT_EQ(new_id("x_", system_clock::time_point{milliseconds(61)}).substr(2, 8), "0000000z");
  EXPECT_EQ(new_id("x_", system_clock::time_point{milliseconds(62)}).substr(2, 8), "00000010");
  // 2026-11-23T00:00:00Z = 1795392000000 ms: seven significant characters, one leading zero.
  EXPECT_EQ(new_id("x_", system_clock::time_point{milliseconds(1795392000000)}).substr(2, 8),
            base62_fixed_width(1795392000000, 8));
  EXPECT_EQ(base62_fixed_width(1795392000000, 8)[0], '0');
  EXPECT_EQ(base62_fixed_width(62ULL * 62 * 62 * 62 * 62 * 62 * 62 * 62 - 1, 8), "zzzzzzzz");
}

TEST(IdsTest, LaterIdsSortAfterEarlierOnesInByteOrder) {
  const auto start = system_clock::time_point{milliseconds(1795392000000)};
  std::string previous = new_id("po_", start);
  // Across every carry of the lowest characters, and a jump of a year.
  for (const auto step : {milliseconds(1), milliseconds(61), milliseconds(62), milliseconds(3844),
                          milliseconds(31'536'000'000)}) {
    const std::string next = new_id("po_", start + step);
    EXPECT_LT(previous.substr(0, 11), next.substr(0, 11)) << previous << " " << next;
    EXPECT_LT(new_id("po_", start), next);
    previous = next;
  }
}

TEST(IdsTest, IdsOfTheSameMillisecondDifferInTheirRandomPart) {
  const auto now = system_clock::now();
  std::set<std::string> ids;
  for (int index = 0; index < 1000; ++index) ids.insert(new_id("po_", now));
  EXPECT_EQ(ids.size(), 1000u);
  for (const auto& id : ids) EXPECT_EQ(id.substr(0, 11), ids.begin()->substr(0, 11));
}

}  // namespace
}  // namespace payrail::infra
