// The KYB submission state machine as data (schemas/model/common/lifecycle.h): an organization
// submits (POST /v1/kyb) and operators review with the CLI: pending -> in_review -> verified |
// rejected. Each row names what follows on the organization's kyb_status
// (organization_lifecycle.h), the audit-log action that records it and whether the operator's notes
// go with it. Any pair not in the table is refused; verified and rejected are final (a rejected
// organization submits anew).
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "schemas/model/common/errors.h"
#include "schemas/model/common/lifecycle.h"
#include "schemas/model/organizations/organization_lifecycle.h"

namespace payrail::model {

enum class KybSubmissionStatus { pending, in_review, verified, rejected };

enum class KybSubmissionTrigger {
  submit,        // POST /v1/kyb
  start_review,  // an operator takes the submission into review
  verify,        // the operator verifies the business
  reject,        // the operator rejects it, with notes for the organization
};

// The operator's review notes on a transition.
enum class ReviewNotes { not_accepted, optional, required };

struct KybSubmissionEffects {
  std::optional<KybStatusTrigger> organization_kyb;  // what the organization's kyb_status does
  std::string_view audit_action;                     // "kyb.submitted", "kyb.verified", ...
  ReviewNotes notes = ReviewNotes::not_accepted;
  bool decision = false;  // a final review: sets reviewed_at

  bool operator==(const KybSubmissionEffects&) const = default;
};

using KybSubmissionTransition =
    Transition<KybSubmissionStatus, KybSubmissionTrigger, KybSubmissionEffects>;

std::span<const KybSubmissionTransition> kyb_submission_transitions();
std::optional<KybSubmissionTransition> find_kyb_submission_transition(
    std::optional<KybSubmissionStatus> from, KybSubmissionTrigger trigger);
// The row that moves a submission from `from` to `to` (the CLI names the target status).
std::optional<KybSubmissionTransition> find_kyb_submission_transition_to(KybSubmissionStatus from,
                                                                         KybSubmissionStatus to);

bool is_terminal(KybSubmissionStatus status);

// Why an organization with this kyb_status may not submit: kyb_in_review while a submission is
// pending or in review, kyb_already_verified once verified; nullopt when it may.
std::optional<ErrorCode> submission_refusal(KybStatus organization_kyb);

std::string_view kyb_submission_status_name(KybSubmissionStatus status);
std::optional<KybSubmissionStatus> parse_kyb_submission_status(std::string_view text);
std::string_view kyb_submission_trigger_name(KybSubmissionTrigger trigger);

}  // namespace payrail::model
