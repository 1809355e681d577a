// The KYB submission table against the contract (pending -> in_review -> verified | rejected,
// docs/going-live.md), restated here independently: every row with what follows on the
// organization's kyb_status, the audit action and the notes rule; every other pair forbidden; and
// the tables agree with each other.
#include <gtest/gtest.h>

#include "schemas/model/organizations/kyb_lifecycle.h"
#include "tests/unit/lifecycle_checks.h"

namespace payrail::model {
namespace {

using S = KybSubmissionStatus;
using T = KybSubmissionTrigger;
using K = KybStatusTrigger;
using N = ReviewNotes;

const std::vector<S> kStatuses{S::pending, S::in_review, S::verified, S::rejected};
const std::vector<T> kTriggers{T::submit, T::start_review, T::verify, T::reject};

const std::vector<KybSubmissionTransition>& contract_rows() {
  static const std::vector<KybSubmissionTransition> rows{
      {std::nullopt, T::submit, S::pending, {K::submit, "kyb.submitted", N::not_accepted, false}},
      {S::pending,
       T::start_review,
       S::in_review,
       {std::nullopt, "kyb.in_review", N::not_accepted, false}},
      {S::in_review, T::verify, S::verified, {K::verify, "kyb.verified", N::optional, true}},
      {S::in_review, T::reject, S::rejected, {K::reject, "kyb.rejected", N::required, true}},
  };
  return rows;
}

class KybSubmissionRow : public ::testing::TestWithParam<std::size_t> {};

TEST_P(KybSubmissionRow, AllowedWithContractEffects) {
  const auto& expected = contract_rows()[GetParam()];
  const auto found = find_kyb_submission_transition(expected.from, expected.trigger);
  ASSERT_TRUE(found.has_value()) << kyb_submission_trigger_name(expected.trigger);
  EXPECT_EQ(found->to, expected.to);
  EXPECT_EQ(found->effects.organization_kyb, expected.effects.organization_kyb);
  EXPECT_EQ(found->effects.audit_action, expected.effects.audit_action);
  EXPECT_EQ(found->effects.notes, expected.effects.notes);
  EXPECT_EQ(found->effects.decision, expected.effects.decision);
  if (expected.from) {
    EXPECT_EQ(find_kyb_submission_transition_to(*expected.from, expected.to), found);
  }
}

INSTANTIATE_TEST_SUITE_P(EveryContractRow, KybSubmissionRow, ::testing::Range<std::size_t>(0, 4));

TEST(KybLifecycle, ExactTableEveryOtherPairForbidden) {
  testing::expect_exact_table<S, T, KybSubmissionEffects>(
      kyb_submission_transitions(), contract_rows(), kStatuses.size(), kTriggers.size(),
      [](S status) { return std::string(kyb_submission_status_name(status)); },
      [](T trigger) { return std::string(kyb_submission_trigger_name(trigger)); });
}

TEST(KybLifecycle, EveryOtherTargetIsForbiddenForTheCli) {
  // The CLI names target statuses: only the table's four moves exist.
  int allowed = 0;
  for (const auto from : kStatuses) {
    for (const auto to : kStatuses) {
      const bool expected = (from == S::pending && to == S::in_review) ||
                            (from == S::in_review && (to == S::verified || to == S::rejected));
      EXPECT_EQ(find_kyb_submission_transition_to(from, to).has_value(), expected)
          << kyb_submission_status_name(from) << " -> " << kyb_submission_status_name(to);
      allowed += expected ? 1 : 0;
    }
  }
  EXPECT_EQ(allowed, 3);
  // Review skips nothing: pending cannot be decided directly.
  EXPECT_FALSE(find_kyb_submission_transition(S::pending, T::verify));
  EXPECT_FALSE(find_kyb_submission_transition(S::pending, T::reject));
}

TEST(KybLifecycle, DecisionsAreFinal) {
  EXPECT_TRUE(is_terminal(S::verified));
  EXPECT_TRUE(is_terminal(S::rejected));
  EXPECT_FALSE(is_terminal(S::pending));
  EXPECT_FALSE(is_terminal(S::in_review));
}

// Applying the submission table's organization triggers from the organization's table must
// always be possible along every path a submission can take.
TEST(KybLifecycle, OrganizationKybStatusFollowsEverySubmissionPath) {
  for (const auto start : {KybStatus::unverified, KybStatus::rejected}) {
    for (const auto decision : {T::verify, T::reject}) {
      auto organization = start;
      std::optional<S> submission;
      for (const auto trigger : {T::submit, T::start_review, decision}) {
        const auto row = find_kyb_submission_transition(submission, trigger);
        ASSERT_TRUE(row);
        submission = row->to;
        if (row->effects.organization_kyb) {
          const auto follows =
              find_kyb_status_transition(organization, *row->effects.organization_kyb);
          ASSERT_TRUE(follows) << kyb_status_name(organization);
          organization = follows->to;
        }
      }
      EXPECT_EQ(organization, decision == T::verify ? KybStatus::verified : KybStatus::rejected);
    }
  }
}

TEST(KybLifecycle, SubmissionRefusalFollowsTheOrganizationKybStatus) {
  EXPECT_EQ(submission_refusal(KybStatus::unverified), std::nullopt);
  EXPECT_EQ(submission_refusal(KybStatus::rejected), std::nullopt);
  EXPECT_EQ(submission_refusal(KybStatus::pending), ErrorCode::kyb_in_review);
  EXPECT_EQ(submission_refusal(KybStatus::verified), ErrorCode::kyb_already_verified);
  EXPECT_EQ(error_spec(ErrorCode::kyb_in_review).http_status, 409);
  EXPECT_EQ(error_spec(ErrorCode::kyb_already_verified).http_status, 409);
}

TEST(KybLifecycle, StatusNamesRoundTrip) {
  for (const auto status : kStatuses) {
    EXPECT_EQ(parse_kyb_submission_status(kyb_submission_status_name(status)), status);
  }
  EXPECT_EQ(kyb_submission_status_name(S::in_review), "in_review");
  EXPECT_FALSE(parse_kyb_submission_status("unverified"));
}

}  // namespace
}  // namespace payrail::model
