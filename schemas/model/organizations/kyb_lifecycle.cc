#include "schemas/model/organizations/kyb_lifecycle.h"

#include <array>

namespace payrail::model {
namespace {

using S = KybSubmissionStatus;
using T = KybSubmissionTrigger;
using K = KybStatusTrigger;
using N = ReviewNotes;

// clang-format off
constexpr std::array kTransitions{
    //                      from          trigger          to            organization  audit action     notes            decision
    KybSubmissionTransition{std::nullopt, T::submit,       S::pending,   {K::submit,   "kyb.submitted", N::not_accepted, false}},
    KybSubmissionTransition{S::pending,   T::start_review, S::in_review, {std::nullopt, "kyb.in_review", N::not_accepted, false}},
    KybSubmissionTransition{S::in_review, T::verify,       S::verified,  {K::verify,   "kyb.verified",  N::optional,     true}},
    KybSubmissionTransition{S::in_review, T::reject,       S::rejected,  {K::reject,   "kyb.rejected",  N::required,     true}},
};
// clang-format on

constexpr EnumNames<KybSubmissionStatus, 4> kStatusNames{
    {"pending", "in_review", "verified", "rejected"}};
constexpr EnumNames<KybSubmissionTrigger, 4> kTriggerNames{
    {"submit", "start_review", "verify", "reject"}};

}  // namespace

std::span<const KybSubmissionTransition> kyb_submission_transitions() {
  return kTransitions;
}

std::optional<KybSubmissionTransition> find_kyb_submission_transition(
    std::optional<KybSubmissionStatus> from, KybSubmissionTrigger trigger) {
  return find_transition(kyb_submission_transitions(), from, trigger);
}

std::optional<KybSubmissionTransition> find_kyb_submission_transition_to(KybSubmissionStatus from,
                                                                         KybSubmissionStatus to) {
  for (const auto& row : kyb_submission_transitions()) {
    if (row.from == from && row.to == to) return row;
  }
  return std::nullopt;
}

bool is_terminal(KybSubmissionStatus status) {
  return is_terminal_in(kyb_submission_transitions(), status);
}

std::optional<ErrorCode> submission_refusal(KybStatus organization_kyb) {
  if (find_kyb_status_transition(organization_kyb, KybStatusTrigger::submit)) return std::nullopt;
  return organization_kyb == KybStatus::verified ? ErrorCode::kyb_already_verified
                                                 : ErrorCode::kyb_in_review;
}

std::string_view kyb_submission_status_name(KybSubmissionStatus status) {
  return kStatusNames.name(status);
}

std::optional<KybSubmissionStatus> parse_kyb_submission_status(std::string_view text) {
  return kStatusNames.parse(text);
}

std::string_view kyb_submission_trigger_name(KybSubmissionTrigger trigger) {
  return kTriggerNames.name(trigger);
}

}  // namespace payrail::model
