// Exhaustive checks of a lifecycle table (schemas/model/common/lifecycle.h) against rows the test
// restates from the contract, independently of the implementation: every expected row is allowed
// with exactly its target and effects, the table has no other row, and every other
// (from, trigger) pair, creation included, is forbidden.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "schemas/model/common/lifecycle.h"

namespace payrail::testing {

template <class Status, class Trigger, class Effects>
void expect_exact_table(std::span<const model::Transition<Status, Trigger, Effects>> table,
                        const std::vector<model::Transition<Status, Trigger, Effects>>& expected,
                        std::size_t status_count, std::size_t trigger_count,
                        const std::function<std::string(Status)>& status_name,
                        const std::function<std::string(Trigger)>& trigger_name) {
  const auto describe = [&](std::optional<Status> from, Trigger trigger) {
    return (from ? status_name(*from) : std::string("(creation)")) + " + " + trigger_name(trigger);
  };
  EXPECT_EQ(table.size(), expected.size()) << "the table has rows the contract does not";
  for (const auto& row : expected) {
    const auto found = model::find_transition(table, row.from, row.trigger);
    ASSERT_TRUE(found.has_value()) << "forbidden but expected: " << describe(row.from, row.trigger);
    EXPECT_EQ(found->to, row.to) << describe(row.from, row.trigger);
    EXPECT_TRUE(found->effects == row.effects)
        << "effects differ: " << describe(row.from, row.trigger);
  }
  std::vector<std::optional<Status>> origins{std::nullopt};
  for (std::size_t s = 0; s < status_count; ++s) origins.push_back(static_cast<Status>(s));
  std::size_t forbidden = 0;
  for (const auto& from : origins) {
    for (std::size_t t = 0; t < trigger_count; ++t) {
      const auto trigger = static_cast<Trigger>(t);
      bool listed = false;
      for (const auto& row : expected)
        listed = listed || (row.from == from && row.trigger == trigger);
      if (listed) continue;
      ++forbidden;
      EXPECT_FALSE(model::find_transition(table, from, trigger).has_value())
          << "allowed but not in the contract: " << describe(from, trigger);
    }
  }
  EXPECT_EQ(forbidden + expected.size(), (status_count + 1) * trigger_count);
}

}  // namespace payrail::testing
