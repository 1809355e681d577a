// The fiat payout transition table against the contract (docs/fiat-payouts.md: the interface's
// fiat payout states with approve, reject and cancel), restated here independently: every allowed
// row with its money movement, event and spend give-back, and every other (status, trigger) pair
// forbidden, creation included.
#include <gtest/gtest.h>

#include "schemas/model/fiat_payouts/fiat_payout_lifecycle.h"
#include "tests/unit/lifecycle_checks.h"

namespace payrail::model {
namespace {

using S = FiatPayoutStatus;
using T = FiatPayoutTrigger;
using M = MoneyEffect;

const std::vector<FiatPayoutTransition>& contract_rows() {
  static const std::vector<FiatPayoutTransition> rows{
      {std::nullopt, T::create, S::pending, {M::hold, std::nullopt, false}},
      {S::pending, T::start_screening, S::screening, {M::none, std::nullopt, false}},
      {S::screening, T::screening_clear, S::processing, {M::none, "fiat_payout.processing", false}},
      {S::screening, T::screening_flagged, S::blocked, {M::release, "fiat_payout.blocked", true}},
      {S::screening,
       T::screening_over_limit,
       S::pending_approval,
       {M::none, "fiat_payout.pending_approval", false}},
      {S::pending_approval, T::approve, S::processing, {M::none, "fiat_payout.processing", false}},
      {S::pending_approval, T::reject, S::cancelled, {M::release, "fiat_payout.cancelled", true}},
      {S::processing,
       T::partner_credited,
       S::completed,
       {M::settle, "fiat_payout.completed", false}},
      {S::processing, T::partner_failed, S::failed, {M::refund, "fiat_payout.failed", true}},
      {S::pending, T::cancel, S::cancelled, {M::release, "fiat_payout.cancelled", true}},
      {S::screening, T::cancel, S::cancelled, {M::release, "fiat_payout.cancelled", true}},
      {S::pending_approval, T::cancel, S::cancelled, {M::release, "fiat_payout.cancelled", true}},
  };
  return rows;
}

class FiatPayoutTransitionRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(FiatPayoutTransitionRow, AllowedWithContractEffects) {
  const auto& expected = contract_rows()[GetParam()];
  const auto found = find_fiat_payout_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << fiat_payout_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
  EXPECT_EQ(found->effects.money, expected.effects.money);
  EXPECT_EQ(found->effects.event, expected.effects.event);
  EXPECT_EQ(found->effects.returns_spend, expected.effects.returns_spend);
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, FiatPayoutTransitionRow,
                         ::testing::Range<std::size_t>(0, 12));

TEST(FiatPayoutLifecycle, ExactTableEveryOtherPairForbidden) {
  testing::expect_exact_table<S, T, PayoutEffects>(
      fiat_payout_transitions(), contract_rows(), kFiatPayoutStatusCount, kFiatPayoutTriggerCount,
      [](S status) { return std::string(fiat_payout_status_name(status)); },
      [](T trigger) { return std::string(fiat_payout_trigger_name(trigger)); });
}

TEST(FiatPayoutLifecycle, TerminalStatesAreTheContracts) {
  for (std::size_t i = 0; i < kFiatPayoutStatusCount; ++i) {
    const auto status = static_cast<S>(i);
    const bool terminal = status == S::completed || status == S::failed || status == S::blocked ||
                          status == S::cancelled;
    EXPECT_EQ(is_terminal(status), terminal) << fiat_payout_status_name(status);
  }
}

// Cancel is allowed before processing and nowhere else; there is no `approved` state to cancel.
TEST(FiatPayoutLifecycle, CancelOnlyBeforeProcessing) {
  for (std::size_t i = 0; i < kFiatPayoutStatusCount; ++i) {
    const auto status = static_cast<S>(i);
    const bool before =
        status == S::pending || status == S::screening || status == S::pending_approval;
    EXPECT_EQ(find_fiat_payout_transition(status, T::cancel).has_value(), before)
        << fiat_payout_status_name(status);
  }
}

// Every accepted fiat payout is held once and then has exactly one outcome: along any path
// through the table, the money effects after the hold are one of release, refund or settle.
TEST(FiatPayoutLifecycle, EveryPathHoldsOnceAndEndsWithOneOutcome) {
  struct Walk {
    S status;
    int outcomes;
  };
  std::vector<Walk> frontier{{S::pending, 0}};
  int terminals_reached = 0;
  while (!frontier.empty()) {
    const auto walk = frontier.back();
    frontier.pop_back();
    if (is_terminal(walk.status)) {
      EXPECT_EQ(walk.outcomes, 1) << fiat_payout_status_name(walk.status);
      ++terminals_reached;
      continue;
    }
    for (const auto& row : fiat_payout_transitions()) {
      if (row.from != walk.status) continue;
      EXPECT_NE(row.effects.money, M::hold) << "a second hold";
      frontier.push_back({row.to, walk.outcomes + (row.effects.money != M::none ? 1 : 0)});
    }
  }
  EXPECT_GT(terminals_reached, 0);
}

TEST(FiatPayoutLifecycle, NamesRoundTrip) {
  for (std::size_t i = 0; i < kFiatPayoutStatusCount; ++i) {
    const auto status = static_cast<S>(i);
    EXPECT_EQ(parse_fiat_payout_status(fiat_payout_status_name(status)), status);
  }
  EXPECT_FALSE(parse_fiat_payout_status("approved").has_value());
  EXPECT_FALSE(parse_fiat_payout_status("PENDING").has_value());
}

}  // namespace
}  // namespace payrail::model
