#include "api/middleware/organization_gate.h"

#include <string>

#include "api/services.h"

namespace payrail::api {

namespace organizations = infra::store::organizations;

model::Status check_live_mode(model::Mode mode, model::KybStatus kyb_status,
                              std::string_view what) {
  if (mode != model::Mode::live || model::admits_live_mode(kyb_status)) return model::ok_status();
  return model::Error::make(model::ErrorCode::kyb_required,
                            std::string(what) + " need a verified business (KYB).");
}

model::Status check_live_create(const ApiKeyPrincipal& principal, std::string_view what) {
  return check_live_mode(principal.mode, principal.kyb_status, what);
}

model::Result<organizations::OrganizationRow> session_member(
    const RequestContext& context, std::string_view org_id,
    std::optional<std::string_view> required_role) {
  auto& db = *context.services->db;
  auto role = organizations::member_role(db, org_id, context.session->subject);
  if (!role.ok()) return role.error();
  if (!*role || (required_role && **role != *required_role)) {
    return model::Error::make(model::ErrorCode::resource_missing,
                              "No such organization for this session.");
  }
  auto organization = organizations::find(db, org_id);
  if (!organization.ok()) return organization.error();
  if (!*organization) {
    return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
  }
  if (auto standing = model::check_standing((*organization)->status); !standing.ok()) {
    return standing.error();
  }
  return std::move(**organization);
}

model::Result<organizations::OrganizationRow> session_organization(const RequestContext& context) {
  const auto header = context.request.header("Payrail-Organization");
  if (!header) {
    return model::bad_request(
        "With a session, name the organization in the Payrail-Organization header.",
        "Payrail-Organization");
  }
  return session_member(context, *header, "owner");
}

}  // namespace payrail::api
