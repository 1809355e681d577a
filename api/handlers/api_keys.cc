// POST /v1/api-keys, GET /v1/api-keys, DELETE /v1/api-keys/{id}.
#include "api/handlers/api_keys.h"

#include <algorithm>
#include <array>

#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/store/organizations/organizations.h"
#include "schemas/model/organizations/scopes.h"

namespace payrail::api {
namespace {

namespace api_keys = infra::store::api_keys;
namespace organizations = infra::store::organizations;
using model::json::Field;
using model::json::Kind;

constexpr std::array kCreateFields{Field{"mode", Kind::string, true},
                                   Field{"name", Kind::string, false},
                                   Field{"scopes", Kind::array, false}};
constexpr std::size_t kNameLengthMax = 100;

// What a new key may do. An owner's session grants any scope; a key grants at most its own, so
// a narrow key can never mint a broader one. Without `scopes` the new key gets everything the
// creator may grant.
model::Result<std::vector<std::string>> read_scopes(const rapidjson::Document& body,
                                                    const RequestContext& context) {
  std::vector<std::string> grantable(model::kGrantableScopes.begin(),
                                     model::kGrantableScopes.end());
  if (context.api_key) grantable = context.api_key->scopes;
  const auto* scopes = model::json::member(body, "scopes");
  if (scopes == nullptr) return grantable;
  std::vector<std::string> granted;
  for (rapidjson::SizeType i = 0; i < scopes->Size(); ++i) {
    const auto& scope = (*scopes)[i];
    const auto param = "scopes." + std::to_string(i);
    if (!scope.IsString()) return model::bad_request("scopes must be strings.", param);
    const std::string name(scope.GetString(), scope.GetStringLength());
    if (!model::is_grantable_scope(name)) {
      return model::bad_request("Unknown scope; valid scopes are listed in the API reference.",
                                param);
    }
    if (std::find(grantable.begin(), grantable.end(), name) == grantable.end()) {
      return model::Error::make(
          model::ErrorCode::scope_insufficient,
          "An API key can only grant scopes it has itself; this one lacks " + name + ".", param);
    }
    if (std::find(granted.begin(), granted.end(), name) == granted.end()) granted.push_back(name);
  }
  if (granted.empty()) return model::bad_request("scopes must not be empty.", "scopes");
  return granted;
}

// Who the key is for: the calling key's organization (same mode only), or, for an owner's
// session, the organization named by the Payrail-Organization header.
model::Result<organizations::OrganizationRow> target_organization(const RequestContext& context,
                                                                  model::Mode mode) {
  if (!context.api_key) return session_organization(context);
  if (context.api_key->mode != mode) {
    return model::bad_request("An API key can only create keys of its own mode.", "mode");
  }
  auto organization = organizations::find(*context.services->db, context.api_key->org_id);
  if (!organization.ok()) return organization.error();
  if (!*organization) {
    return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
  }
  return std::move(**organization);
}

model::Result<HttpResponse> create_key(RequestContext& context) {
  auto body = parse_body(context, kCreateFields);
  if (!body.ok()) return body.error();
  const auto mode = model::parse_mode(*model::json::string_member(*body, "mode"));
  if (!mode) return model::bad_request("mode must be test or live.", "mode");
  if (auto status = check_text(*body, "name", kNameLengthMax, false); !status.ok()) {
    return status.error();
  }
  auto scopes = read_scopes(*body, context);
  if (!scopes.ok()) return scopes.error();
  auto organization = target_organization(context, *mode);
  if (!organization.ok()) return organization.error();
  if (auto live = check_live_mode(*mode, organization->kyb_status, "Live keys"); !live.ok()) {
    return live.error();
  }
  const auto name = model::json::string_member(*body, "name");
  auto issued = api_keys::create(*context.services->db, organization->id, *mode,
                                 name ? std::optional<std::string>(*name) : std::nullopt, *scopes);
  if (!issued.ok()) return issued.error();
  return json_object_response(201, [&](model::json::Writer& writer) {
    write_api_key(writer, issued->row, issued->secret);
  });
}

model::Result<HttpResponse> list_keys(RequestContext& context) {
  auto query = parse_list_query(
      context, {.listable = infra::store::Listable::api_keys, .id_prefix = "key_"});
  if (!query.ok()) return query.error();
  const auto& principal = *context.api_key;
  auto page = api_keys::list(*context.services->db, principal.org_id, principal.mode, *query);
  if (!page.ok()) return page.error();
  return list_response<api_keys::ApiKeyRow>(
      *page, [](model::json::Writer& writer, const auto& key) { write_api_key(writer, key); },
      [](const auto& key) { return key.id; });
}

model::Result<HttpResponse> revoke_key(RequestContext& context) {
  const auto& principal = *context.api_key;
  auto revoked = api_keys::revoke(*context.services->db, principal.org_id, principal.mode,
                                  context.path_param("id"));
  if (!revoked.ok()) return revoked.error();
  if (!*revoked) {
    return model::Error::make(model::ErrorCode::not_found,
                              "No such API key, or it is already revoked.");
  }
  return HttpResponse::no_content();
}

}  // namespace

void write_api_key(model::json::Writer& writer, const api_keys::ApiKeyRow& key,
                   const std::optional<std::string>& secret) {
  using namespace model::json;
  writer.StartObject();
  write_key_string(writer, "id", key.id);
  write_key_string(writer, "object", "api_key");
  write_key_string(writer, "prefix", key.prefix);
  write_key_string(writer, "mode", model::mode_name(key.mode));
  write_key_nullable(writer, "name", key.name);
  write_key(writer, "scopes");
  writer.StartArray();
  for (const auto& scope : key.scopes) write_string(writer, scope);
  writer.EndArray();
  write_key(writer, "revoked");
  writer.Bool(key.revoked);
  write_key_string(writer, "created_at", key.created_at);
  write_key_nullable(writer, "last_used_at", key.last_used_at);
  if (secret) write_key_string(writer, "key", *secret);
  writer.EndObject();
}

void register_api_key_routes(Router& router) {
  // The scope applies to API keys; a session has no scopes and must be an owner instead.
  router.add(
      {"POST", "/v1/api-keys", Access::api_key_or_session, "organization:write", sync(create_key)});
  router.add({"GET", "/v1/api-keys", Access::api_key, "organization:read", sync(list_keys)});
  router.add(
      {"DELETE", "/v1/api-keys/{id}", Access::api_key, "organization:write", sync(revoke_key)});
}

}  // namespace payrail::api
