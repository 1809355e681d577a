// What an organization may do, decided in one place from its standing (the organization's
// lifecycle, schemas/model/organization_lifecycle.h):
//   - every API-key request (authentication) and every owner's session acting for an
//     organization: 403 org_suspended unless it is active;
//   - every live key and every live create (stablecoin payouts, fiat payouts, collections):
//     403 kyb_required unless the business is verified.
// Handlers never compare statuses themselves; they call these.
#pragma once

#include <string_view>

#include "api/context.h"
#include "infra/repositories/organizations.h"
#include "schemas/model/mode.h"
#include "schemas/model/organization_lifecycle.h"
#include "schemas/model/result.h"

namespace payrail::api {

// 403 org_suspended unless the organization admits requests (it is active).
model::Status check_standing(model::OrganizationStatus status);

// 403 kyb_required for live mode without a verified business; test mode always passes. `what`
// names the refused thing for the message ("Live payouts", "Live keys").
model::Status check_live_mode(model::Mode mode, model::KybStatus kyb_status, std::string_view what);

// The gate of every live create: the calling key's mode and its organization's kyb_status, read
// when the key authenticated this request. Call it after validation and the idempotency replay
// check, before anything is held.
model::Status check_live_create(const ApiKeyPrincipal& principal, std::string_view what);

// The organization an owner's session acts for: the one named by the Payrail-Organization header
// (400 with that param when missing), owned by the session's subject (404 resource_missing
// otherwise, as for any foreign id) and in good standing (403 org_suspended).
model::Result<infra::repositories::organizations::OrganizationRow> session_organization(
    const RequestContext& context);

}  // namespace payrail::api
