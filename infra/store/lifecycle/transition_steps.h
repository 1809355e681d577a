// What one write of several transitions in turn (payouts::transition with a list of triggers,
// and the same for fiat payouts) needs besides the UPDATE: the event sequence numbers it takes,
// and each step's effects applied to the row as that step left it.
#pragma once

#include <algorithm>
#include <string>
#include <vector>

namespace payrail::infra::store {

// How many of the steps have an event: the sequence numbers their one write takes.
template <class Step>
int count_events(const std::vector<Step>& steps) {
  return static_cast<int>(std::count_if(
      steps.begin(), steps.end(), [](const Step& step) { return step.effects.event.has_value(); }));
}

// Runs `apply(row, step)` for each step in turn, `row` being `after` (the row the last step left)
// as that step left it: its status and its event sequence.
template <class Row, class Step, class StatusName, class Apply>
void for_each_step(Row row, const std::vector<Step>& steps, StatusName status_name, Apply apply) {
  row.event_sequence -= count_events(steps);
  for (const auto& step : steps) {
    row.status = step.to;
    row.resource.status = std::string(status_name(step.to));
    if (step.effects.event) ++row.event_sequence;
    apply(row, step);
  }
}

}  // namespace payrail::infra::store
