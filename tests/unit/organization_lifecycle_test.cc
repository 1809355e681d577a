// The organization's two transition tables against the contract (docs/going-live.md), restated
// here independently: every allowed row with its effects, every other (status, trigger) pair
// forbidden, and what each status permits.
#include <gtest/gtest.h>

#include <set>

#include "schemas/model/organizations/organization_lifecycle.h"
#include "tests/unit/lifecycle_checks.h"

namespace payrail::model {
namespace {

using S = OrganizationStatus;
using T = OrganizationTrigger;
using K = KybStatus;
using KT = KybStatusTrigger;

const std::vector<S> kStatuses{S::pending, S::active, S::suspended, S::closed};
const std::vector<T> kTriggers{T::create, T::suspend, T::reinstate, T::close};
const std::vector<K> kKybStatuses{K::unverified, K::pending, K::verified, K::rejected};
const std::vector<KT> kKybTriggers{KT::create, KT::submit, KT::verify, KT::reject};

const std::vector<OrganizationTransition>& status_rows() {
  static const std::vector<OrganizationTransition> rows{
      {std::nullopt, T::create, S::active, {"organization.created"}},
      {S::active, T::suspend, S::suspended, {"organization.suspended"}},
      {S::suspended, T::reinstate, S::active, {"organization.reinstated"}},
      // Only closing cancels what was not sent; suspension is reversible and keeps it.
      {S::active, T::close, S::closed, {"organization.closed", true}},
      {S::suspended, T::close, S::closed, {"organization.closed", true}},
  };
  return rows;
}

const std::vector<KybStatusTransition>& kyb_rows() {
  static const std::vector<KybStatusTransition> rows{
      {std::nullopt, KT::create, K::unverified, {}}, {K::unverified, KT::submit, K::pending, {}},
      {K::rejected, KT::submit, K::pending, {}},     {K::pending, KT::verify, K::verified, {}},
      {K::pending, KT::reject, K::rejected, {}},
  };
  return rows;
}

class OrganizationStatusRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(OrganizationStatusRow, AllowedWithItsAuditAction) {
  const auto& expected = status_rows()[GetParam()];
  const auto found = find_organization_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << organization_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
  EXPECT_EQ(found->effects, expected.effects);
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, OrganizationStatusRow,
                         ::testing::Range<std::size_t>(0, 5));

TEST(OrganizationLifecycle, ExactStatusTableEveryOtherPairForbidden) {
  testing::expect_exact_table<S, T, OrganizationEffects>(
      organization_transitions(), status_rows(), kStatuses.size(), kTriggers.size(),
      [](S status) { return std::string(organization_status_name(status)); },
      [](T trigger) { return std::string(organization_trigger_name(trigger)); });
}

TEST(OrganizationLifecycle, ForbiddenStatusPairsNamedOneByOne) {
  // The operator moves a test would most likely get wrong, spelled out.
  EXPECT_FALSE(find_organization_transition(S::active, T::reinstate));
  EXPECT_FALSE(find_organization_transition(S::suspended, T::suspend));
  for (const auto trigger : kTriggers) {
    EXPECT_FALSE(find_organization_transition(S::closed, trigger)) << "closed is final";
    EXPECT_FALSE(find_organization_transition(S::pending, trigger)) << "never assigned";
  }
  for (const auto status : kStatuses) EXPECT_FALSE(find_organization_transition(status, T::create));
  for (const auto& row : organization_transitions()) EXPECT_NE(row.to, S::pending);
}

TEST(OrganizationLifecycle, OnlyActiveOrganizationsAreServed) {
  const std::set<S> admitted{S::active};
  for (const auto status : kStatuses) {
    EXPECT_EQ(admits_requests(status), admitted.contains(status))
        << organization_status_name(status);
  }
}

class KybStatusRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(KybStatusRow, Allowed) {
  const auto& expected = kyb_rows()[GetParam()];
  const auto found = find_kyb_status_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << kyb_status_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, KybStatusRow, ::testing::Range<std::size_t>(0, 5));

TEST(OrganizationLifecycle, ExactKybStatusTableEveryOtherPairForbidden) {
  testing::expect_exact_table<K, KT, KybStatusEffects>(
      kyb_status_transitions(), kyb_rows(), kKybStatuses.size(), kKybTriggers.size(),
      [](K status) { return std::string(kyb_status_name(status)); },
      [](KT trigger) { return std::string(kyb_status_trigger_name(trigger)); });
}

TEST(OrganizationLifecycle, ForbiddenKybPairsNamedOneByOne) {
  EXPECT_FALSE(find_kyb_status_transition(K::pending, KT::submit)) << "one open submission";
  EXPECT_FALSE(find_kyb_status_transition(K::verified, KT::submit)) << "verified is final";
  EXPECT_FALSE(find_kyb_status_transition(K::unverified, KT::verify)) << "nothing to verify";
  EXPECT_FALSE(find_kyb_status_transition(K::rejected, KT::verify));
  for (const auto trigger : kKybTriggers)
    EXPECT_FALSE(find_kyb_status_transition(K::verified, trigger));
}

TEST(OrganizationLifecycle, OnlyAVerifiedBusinessGoesLive) {
  for (const auto status : kKybStatuses) {
    EXPECT_EQ(admits_live_mode(status), status == K::verified) << kyb_status_name(status);
  }
}

TEST(OrganizationLifecycle, NamesRoundTripAndMatchTheDatabase) {
  for (const auto status : kStatuses) {
    EXPECT_EQ(parse_organization_status(organization_status_name(status)), status);
  }
  for (const auto status : kKybStatuses)
    EXPECT_EQ(parse_kyb_status(kyb_status_name(status)), status);
  // The wire and column values of the contract.
  EXPECT_EQ(organization_status_name(S::suspended), "suspended");
  EXPECT_EQ(kyb_status_name(K::unverified), "unverified");
  EXPECT_FALSE(parse_organization_status("frozen"));
  EXPECT_FALSE(parse_kyb_status("in_review"));
}

}  // namespace
}  // namespace payrail::model
