// The organization's two state machines as data (schemas/model/common/lifecycle.h), used by the API
// and the operator CLI alike (docs/going-live.md):
//   status      active <-> suspended, active | suspended -> closed (operators);
//   kyb_status  unverified -> pending (a submission) -> verified | rejected (an operator's review),
//               rejected -> pending (a new submission).
// `pending` is in the contract's status enum, but organizations are created `active`, so no row
// reaches it. What each status permits (API access, live mode) is decided here too, so the API
// asks one place.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "schemas/model/common/lifecycle.h"
#include "schemas/model/common/result.h"

namespace payrail::model {

enum class OrganizationStatus { pending, active, suspended, closed };

enum class OrganizationTrigger {
  create,     // POST /v1/organizations
  suspend,    // an operator suspends (payrail org-suspend)
  reinstate,  // an operator lifts a suspension (payrail org-reinstate)
  close,      // an operator closes for good (payrail org-close)
};

struct OrganizationEffects {
  std::string_view audit_action;  // the audit-log action recording it
  // Closing winds the organization down in the same transaction: every payout and fiat payout
  // not yet sent is cancelled (its hold released) and every collection still waiting without a
  // payment is cancelled (docs/going-live.md "6. Suspend, reinstate, close (Operator)").
  bool cancels_unsent = false;

  bool operator==(const OrganizationEffects&) const = default;
};

using OrganizationTransition =
    Transition<OrganizationStatus, OrganizationTrigger, OrganizationEffects>;

enum class KybStatus { unverified, pending, verified, rejected };

enum class KybStatusTrigger {
  create,  // the organization is created
  submit,  // a KYB submission was accepted (POST /v1/kyb)
  verify,  // an operator verified the submission under review
  reject,  // an operator rejected it
};

// The organization's kyb_status follows its submissions (kyb_lifecycle.h), which carry the audit
// trail; this table only says which moves are possible.
struct KybStatusEffects {
  bool operator==(const KybStatusEffects&) const = default;
};

using KybStatusTransition = Transition<KybStatus, KybStatusTrigger, KybStatusEffects>;

std::span<const OrganizationTransition> organization_transitions();
std::optional<OrganizationTransition> find_organization_transition(
    std::optional<OrganizationStatus> from, OrganizationTrigger trigger);

std::span<const KybStatusTransition> kyb_status_transitions();
std::optional<KybStatusTransition> find_kyb_status_transition(std::optional<KybStatus> from,
                                                              KybStatusTrigger trigger);

// Only an active organization's API keys and members' sessions are served; any other status is
// 403 org_suspended on every request.
bool admits_requests(OrganizationStatus status);
// That answer: ok, or 403 org_suspended naming the status. The API's gates and the decisions
// that check the standing again under a lock give the same one.
Status check_standing(OrganizationStatus status);
// Live keys and live creates need a verified business (otherwise 403 kyb_required).
bool admits_live_mode(KybStatus status);

std::string_view organization_status_name(OrganizationStatus status);
std::optional<OrganizationStatus> parse_organization_status(std::string_view text);
std::string_view organization_trigger_name(OrganizationTrigger trigger);
std::string_view kyb_status_name(KybStatus status);
std::optional<KybStatus> parse_kyb_status(std::string_view text);
std::string_view kyb_status_trigger_name(KybStatusTrigger trigger);

}  // namespace payrail::model
