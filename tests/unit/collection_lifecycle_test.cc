// The collection transition table against the contract (docs/collections.md "States"),
// restated here independently: every allowed row with its effects, and every other
// (status, trigger) pair, creation included, forbidden.
#include <gtest/gtest.h>

#include <set>

#include "schemas/model/collections/collection_lifecycle.h"
#include "tests/unit/lifecycle_checks.h"

namespace payrail::model {
namespace {

using S = CollectionStatus;
using T = CollectionTrigger;

const std::vector<S> kStatuses{S::awaiting_payment, S::received, S::settled,
                               S::failed,           S::expired,  S::cancelled};
const std::vector<T> kTriggers{T::create,         T::payment_received, T::settle,
                               T::payment_failed, T::expire,           T::cancel};

const std::vector<CollectionTransition>& contract_rows() {
  static const std::vector<CollectionTransition> rows{
      {std::nullopt, T::create, S::awaiting_payment, {false, std::nullopt, false}},
      {S::awaiting_payment, T::payment_received, S::received, {false, "collection.received", true}},
      {S::received, T::settle, S::settled, {true, "collection.settled", false}},
      {S::received, T::payment_failed, S::failed, {false, "collection.failed", false}},
      {S::awaiting_payment, T::expire, S::expired, {false, "collection.expired", false}},
      {S::awaiting_payment, T::cancel, S::cancelled, {false, "collection.cancelled", false}},
  };
  return rows;
}

class CollectionTransitionRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(CollectionTransitionRow, AllowedWithContractEffects) {
  const auto& expected = contract_rows()[GetParam()];
  const auto found = find_collection_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << collection_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
  EXPECT_EQ(found->effects.credit, expected.effects.credit);
  EXPECT_EQ(found->effects.event, expected.effects.event);
  EXPECT_EQ(found->effects.starts_settlement, expected.effects.starts_settlement);
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, CollectionTransitionRow,
                         ::testing::Range<std::size_t>(0, 6));

// Every one of the 7 x 6 - 6 = 36 other pairs is forbidden; the table has no other row.
TEST(CollectionLifecycle, ExactTableEveryOtherPairForbidden) {
  ASSERT_EQ(kStatuses.size(), kCollectionStatusCount);
  ASSERT_EQ(kTriggers.size(), kCollectionTriggerCount);
  testing::expect_exact_table<S, T, CollectionEffects>(
      collection_transitions(), contract_rows(), kStatuses.size(), kTriggers.size(),
      [](S status) { return std::string(collection_status_name(status)); },
      [](T trigger) { return std::string(collection_trigger_name(trigger)); });
}

using Pair = std::pair<std::optional<S>, T>;

// The 36 pairs the contract does not list, computed from the restated rows above.
std::vector<Pair> forbidden_pairs() {
  std::vector<std::optional<S>> origins{std::nullopt};
  for (const auto status : kStatuses) origins.emplace_back(status);
  std::vector<Pair> pairs;
  for (const auto& from : origins) {
    for (const auto trigger : kTriggers) {
      bool listed = false;
      for (const auto& row : contract_rows()) {
        listed = listed || (row.from == from && row.trigger == trigger);
      }
      if (!listed) pairs.emplace_back(from, trigger);
    }
  }
  return pairs;
}

class CollectionForbiddenPair : public ::testing::TestWithParam<Pair> {};

TEST_P(CollectionForbiddenPair, IsRefused) {
  const auto& [from, trigger] = GetParam();
  EXPECT_FALSE(find_collection_transition(from, trigger).has_value())
      << (from ? collection_status_name(*from) : "(creation)") << " + "
      << collection_trigger_name(trigger);
}

INSTANTIATE_TEST_SUITE_P(EveryPairNotInTheContract, CollectionForbiddenPair,
                         ::testing::ValuesIn(forbidden_pairs()));

TEST(CollectionLifecycle, ThirtySixPairsAreForbidden) {
  EXPECT_EQ(forbidden_pairs().size(), 36u);
}

TEST(CollectionLifecycle, TerminalStatesAllowNothing) {
  for (const auto status : {S::settled, S::failed, S::expired, S::cancelled}) {
    EXPECT_TRUE(is_terminal(status)) << collection_status_name(status);
    for (const auto trigger : kTriggers) {
      EXPECT_FALSE(find_collection_transition(status, trigger).has_value());
    }
  }
  EXPECT_FALSE(is_terminal(S::awaiting_payment));
  EXPECT_FALSE(is_terminal(S::received));
}

TEST(CollectionLifecycle, CancelableOnlyWhileAwaitingPayment) {
  for (const auto status : kStatuses) {
    EXPECT_EQ(is_cancelable(status), status == S::awaiting_payment)
        << collection_status_name(status);
  }
}

// Money moves exactly once, on the one path into `settled`; every other terminal state credits
// nothing, and only a received payment starts settlement.
TEST(CollectionLifecycle, OnlySettlementCreditsAndOnlyReceiptStartsIt) {
  int credits = 0;
  int settlements = 0;
  for (const auto& row : collection_transitions()) {
    EXPECT_EQ(row.effects.credit, row.to == S::settled);
    EXPECT_EQ(row.effects.starts_settlement, row.to == S::received);
    credits += row.effects.credit;
    settlements += row.effects.starts_settlement;
  }
  EXPECT_EQ(credits, 1);
  EXPECT_EQ(settlements, 1);
}

// Every transition after creation fires the event named after its target status.
TEST(CollectionLifecycle, EveryChangeAfterCreationHasItsEvent) {
  for (const auto& row : collection_transitions()) {
    if (!row.from) {
      EXPECT_FALSE(row.effects.event.has_value());
      continue;
    }
    ASSERT_TRUE(row.effects.event.has_value());
    EXPECT_EQ(*row.effects.event, "collection." + std::string(collection_status_name(row.to)));
  }
}

TEST(CollectionLifecycle, NamesRoundTrip) {
  std::set<std::string_view> names;
  for (const auto status : kStatuses) {
    EXPECT_EQ(parse_collection_status(collection_status_name(status)), status);
    names.insert(collection_status_name(status));
  }
  EXPECT_EQ(names.size(), kStatuses.size());
  EXPECT_FALSE(parse_collection_status("pending").has_value());
  EXPECT_EQ(collection_trigger_name(T::payment_failed), "payment_failed");
}

}  // namespace
}  // namespace payrail::model
