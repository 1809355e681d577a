// The payout transition table against the contract (docs/api.md "Payouts", with approve and
// reject), restated here independently: every allowed row, and every other (status, trigger)
// pair forbidden.
#include <gtest/gtest.h>

#include <set>
#include <tuple>

#include "schemas/model/payouts/payout_lifecycle.h"
#include "tests/unit/lifecycle_checks.h"

namespace payrail::model {
namespace {

using S = PayoutStatus;
using T = PayoutTrigger;
using M = MoneyEffect;

struct Expected {
  std::optional<S> from;
  T trigger;
  S to;
  M money;
  std::optional<std::string_view> event;
};

const std::vector<Expected>& contract_rows() {
  static const std::vector<Expected> rows{
      {std::nullopt, T::create, S::pending, M::hold, "payout.created"},
      {S::pending, T::start_screening, S::screening, M::none, std::nullopt},
      {S::screening, T::screening_clear, S::approved, M::none, std::nullopt},
      {S::screening, T::screening_flagged, S::blocked, M::release, "payout.blocked"},
      {S::screening, T::screening_over_limit, S::pending_approval, M::none,
       "payout.pending_approval"},
      {S::approved, T::execute, S::processing, M::none, "payout.processing"},
      {S::pending_approval, T::approve, S::processing, M::none, "payout.processing"},
      {S::pending_approval, T::reject, S::cancelled, M::release, "payout.cancelled"},
      {S::processing, T::confirm, S::completed, M::settle, "payout.completed"},
      {S::processing, T::broadcast_failed, S::failed, M::refund, "payout.failed"},
      {S::pending, T::cancel, S::cancelled, M::release, "payout.cancelled"},
      {S::screening, T::cancel, S::cancelled, M::release, "payout.cancelled"},
      {S::pending_approval, T::cancel, S::cancelled, M::release, "payout.cancelled"},
      {S::approved, T::cancel, S::cancelled, M::release, "payout.cancelled"},
  };
  return rows;
}

const std::vector<S> kAllStatuses{S::pending,    S::screening, S::approved,
                                  S::processing, S::completed, S::failed,
                                  S::blocked,    S::cancelled, S::pending_approval};
const std::vector<T> kAllTriggers{T::create,
                                  T::start_screening,
                                  T::screening_clear,
                                  T::screening_flagged,
                                  T::screening_over_limit,
                                  T::execute,
                                  T::approve,
                                  T::reject,
                                  T::cancel,
                                  T::confirm,
                                  T::broadcast_failed};

class PayoutTransitionRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(PayoutTransitionRow, AllowedWithContractEffects) {
  const auto& expected = contract_rows()[GetParam()];
  const auto found = find_payout_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << payout_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
  EXPECT_EQ(found->effects.money, expected.money);
  EXPECT_EQ(found->effects.event, expected.event);
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, PayoutTransitionRow,
                         ::testing::Range<std::size_t>(0, 14));

TEST(PayoutLifecycle, TableHasExactlyTheContractRows) {
  EXPECT_EQ(payout_transitions().size(), contract_rows().size());
}

TEST(PayoutLifecycle, EveryOtherStatusTriggerPairIsForbidden) {
  std::set<std::pair<std::optional<S>, T>> allowed;
  for (const auto& row : contract_rows()) allowed.emplace(row.from, row.trigger);
  int forbidden_checked = 0;
  std::vector<std::optional<S>> froms{std::nullopt};
  for (const auto status : kAllStatuses) froms.emplace_back(status);
  for (const auto& from : froms) {
    for (const auto trigger : kAllTriggers) {
      if (allowed.contains({from, trigger})) continue;
      EXPECT_FALSE(find_payout_transition(from, trigger).has_value())
          << (from ? payout_status_name(*from) : "(none)") << " + " << payout_trigger_name(trigger);
      ++forbidden_checked;
    }
  }
  EXPECT_EQ(forbidden_checked, 10 * 11 - 14);
}

// The shared exhaustive check (used by every resource's lifecycle test) agrees, spend-back
// included: exactly the paths to a terminal state other than completed give the amount back.
TEST(PayoutLifecycle, ExactTableThroughTheSharedCheck) {
  std::vector<PayoutTransition> expected;
  for (const auto& row : contract_rows()) {
    const bool gives_back = row.to == S::blocked || row.to == S::cancelled || row.to == S::failed;
    expected.push_back({row.from, row.trigger, row.to, {row.money, row.event, gives_back}});
  }
  testing::expect_exact_table<S, T, PayoutEffects>(
      payout_transitions(), expected, kAllStatuses.size(), kAllTriggers.size(),
      [](S status) { return std::string(payout_status_name(status)); },
      [](T trigger) { return std::string(payout_trigger_name(trigger)); });
}

TEST(PayoutLifecycle, TerminalStatesAllowNothing) {
  for (const auto status : {S::completed, S::failed, S::blocked, S::cancelled}) {
    EXPECT_TRUE(is_terminal(status));
    for (const auto trigger : kAllTriggers) {
      EXPECT_FALSE(find_payout_transition(status, trigger).has_value());
    }
  }
  for (const auto status :
       {S::pending, S::screening, S::approved, S::processing, S::pending_approval}) {
    EXPECT_FALSE(is_terminal(status));
  }
}

TEST(PayoutLifecycle, CancelableExactlyBeforeProcessing) {
  const std::set<S> cancelable{S::pending, S::screening, S::pending_approval, S::approved};
  for (const auto status : kAllStatuses) {
    EXPECT_EQ(is_cancelable(status), cancelable.contains(status)) << payout_status_name(status);
  }
}

TEST(PayoutLifecycle, EveryAcceptedPayoutEndsWithExactlyOneMoneyOutcome) {
  // Every path into a terminal state other than completed gives the hold back; completed
  // settles it; nothing else moves money after the hold.
  for (const auto& row : payout_transitions()) {
    if (!is_terminal(row.to)) {
      EXPECT_TRUE(row.effects.money == M::none || row.effects.money == M::hold);
    } else if (row.to == S::completed) {
      EXPECT_EQ(row.effects.money, M::settle);
    } else {
      EXPECT_TRUE(row.effects.money == M::release || row.effects.money == M::refund);
      EXPECT_TRUE(row.effects.returns_spend);
    }
  }
}

TEST(PayoutLifecycle, StatusNamesRoundTrip) {
  for (const auto status : kAllStatuses) {
    EXPECT_EQ(parse_payout_status(payout_status_name(status)), status);
  }
  EXPECT_FALSE(parse_payout_status("done").has_value());
}

// Screening records its start and its decision with one write: the rows both triggers take in
// turn, or nothing when the table forbids either.
TEST(PayoutLifecycle, TransitionsInTurnFollowTheTable) {
  const auto through = find_transitions(S::pending, {T::start_screening, T::screening_flagged},
                                        find_payout_transition);
  ASSERT_TRUE(through.has_value());
  ASSERT_EQ(through->size(), 2u);
  EXPECT_EQ((*through)[0], *find_payout_transition(S::pending, T::start_screening));
  EXPECT_EQ((*through)[1], *find_payout_transition(S::screening, T::screening_flagged));
  EXPECT_FALSE(
      find_transitions(S::pending, {T::screening_clear, T::start_screening}, find_payout_transition)
          .has_value());
  EXPECT_FALSE(
      find_transitions(S::approved, {T::start_screening}, find_payout_transition).has_value());
  EXPECT_EQ(find_transitions(S::approved, {}, find_payout_transition)->size(), 0u);
}

}  // namespace
}  // namespace payrail::model
