// What an organization may do, decided in one place from its standing (the organization's
// lifecycle, schemas/model/organizations/organization_lifecycle.h):
//   - every API-key request (authentication) and every session acting for an organization
//     (session_member, the one gate of every session route that names one): 403 org_suspended
//     unless it is active;
//   - every live key and every live create (stablecoin payouts, fiat payouts, collections):
//     403 kyb_required unless the business is verified.
// Handlers never compare statuses themselves; they call these.
#pragma once

#include <optional>
#include <string_view>

#include "api/context.h"
#include "infra/store/organizations/organizations.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"
#include "schemas/model/organizations/organization_lifecycle.h"

namespace payrail::api {

// 403 kyb_required for live mode without a verified business; test mode always passes. `what`
// names the refused thing for the message ("Live payouts", "Live keys").
model::Status check_live_mode(model::Mode mode, model::KybStatus kyb_status, std::string_view what);

// The gate of every live create: the calling key's mode and its organization's kyb_status, read
// when the key authenticated this request. Call it after validation and the idempotency replay
// check, before anything is held.
model::Status check_live_create(const ApiKeyPrincipal& principal, std::string_view what);

// The organization a session acts for, as one of its members: 404 resource_missing (as for any
// foreign id) unless the session's subject is a member, with `required_role` when one is given;
// then 403 org_suspended unless the organization is active. Every session route acting for an
// organization calls it (tests/e2e/standing_test.cc walks the route table); a decision that moves
// money checks the standing again under a lock (organizations::hold_standing).
model::Result<infra::store::organizations::OrganizationRow> session_member(
    const RequestContext& context, std::string_view org_id,
    std::optional<std::string_view> required_role = std::nullopt);

// The organization an owner's session names in the Payrail-Organization header (400 with that
// param when missing), through session_member with the owner role.
model::Result<infra::store::organizations::OrganizationRow> session_organization(
    const RequestContext& context);

}  // namespace payrail::api
