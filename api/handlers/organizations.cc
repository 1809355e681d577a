// POST /v1/organizations (identity-provider session) and GET /v1/organization.
#include <array>

#include "api/handlers/api_keys.h"
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/services.h"
#include "infra/adapters/catalog/countries.h"
#include "infra/store/organizations/organizations.h"

namespace payrail::api {
namespace {

namespace organizations = infra::store::organizations;
using model::json::Field;
using model::json::Kind;

constexpr std::array kCreateFields{Field{"legal_name", Kind::string, true},
                                   Field{"display_name", Kind::string, true},
                                   Field{"country", Kind::string, true}};
constexpr std::size_t kNameLengthMax = 200;

void write_organization(model::json::Writer& writer, const organizations::OrganizationRow& row) {
  using namespace model::json;
  write_key_string(writer, "id", row.id);
  write_key_string(writer, "object", "organization");
  write_key_string(writer, "legal_name", row.legal_name);
  write_key_string(writer, "display_name", row.display_name);
  write_key_string(writer, "country", row.country);
  write_key_string(writer, "status", model::organization_status_name(row.status));
  write_key_string(writer, "kyb_status", model::kyb_status_name(row.kyb_status));
  write_key_string(writer, "created_at", row.created_at);
}

model::Result<HttpResponse> create_organization(RequestContext& context) {
  auto body = parse_body(context, kCreateFields);
  if (!body.ok()) return body.error();
  for (const char* field : {"legal_name", "display_name"}) {
    if (auto status = check_text(*body, field, kNameLengthMax); !status.ok()) {
      return status.error();
    }
  }
  const std::string country(*model::json::string_member(*body, "country"));
  if (!context.services->countries->name_of(country)) {
    return model::bad_request("country must be an ISO 3166-1 alpha-2 code such as CA.", "country");
  }
  organizations::NewOrganization request{
      std::string(*model::json::string_member(*body, "legal_name")),
      std::string(*model::json::string_member(*body, "display_name")), country,
      context.session->subject, context.session->email};
  auto created = organizations::create(*context.services->db, request);
  if (!created.ok()) return created.error();
  return json_object_response(201, [&](model::json::Writer& writer) {
    writer.StartObject();
    write_organization(writer, created->organization);
    model::json::write_key(writer, "api_key");
    write_api_key(writer, created->test_key.row, created->test_key.secret);
    writer.EndObject();
  });
}

model::Result<HttpResponse> get_organization(RequestContext& context) {
  auto found = organizations::find(*context.services->db, context.api_key->org_id);
  if (!found.ok()) return found.error();
  if (!*found)
    return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
  return json_object_response(200, [&](model::json::Writer& writer) {
    writer.StartObject();
    write_organization(writer, **found);
    writer.EndObject();
  });
}

}  // namespace

void register_organization_routes(Router& router) {
  router.add({"POST", "/v1/organizations", Access::session, "", sync(create_organization)});
  router.add(
      {"GET", "/v1/organization", Access::api_key, "organization:read", sync(get_organization)});
}

}  // namespace payrail::api
