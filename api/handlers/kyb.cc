// POST /v1/kyb (an API key with organization:write, or the owner's session) and GET /v1/kyb
// (organization:read): business verification. Submissions belong to the whole organization, not
// to a mode: a test key submits before any live key exists. Beneficial owners' names and dates of
// birth are personal data: sealed at rest, shown only to the organization, never logged.
#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/adapters/catalog/countries.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/plumbing/log/log.h"
#include "infra/plumbing/time/clock.h"
#include "infra/store/organizations/kyb_submissions.h"

namespace payrail::api {
namespace {

namespace submissions = infra::store::kyb_submissions;
using model::json::write_key;
using model::json::write_key_string;

constexpr std::size_t kDateLength = 10;  // YYYY-MM-DD

void write_owners(model::json::Writer& writer, const std::vector<model::BeneficialOwner>& owners) {
  write_key(writer, "beneficial_owners");
  writer.StartArray();
  for (const auto& owner : owners) {
    writer.StartObject();
    write_key_string(writer, "name", owner.name);
    write_key_string(writer, "dob", owner.dob);
    write_key_string(writer, "ownership_pct", owner.ownership_pct);
    write_key_string(writer, "country", owner.country);
    writer.EndObject();
  }
  writer.EndArray();
}

void write_submission(model::json::Writer& writer, const submissions::SubmissionRow& row) {
  const auto& application = row.application;
  writer.StartObject();
  write_key_string(writer, "id", row.id);
  write_key_string(writer, "object", "kyb_submission");
  write_key_string(writer, "org_id", row.org_id);
  write_key_string(writer, "status", model::kyb_submission_status_name(row.status));
  write_key_string(writer, "legal_name", application.legal_name);
  write_key_string(writer, "registration_no", application.registration_no);
  write_key_string(writer, "incorporation_country", application.incorporation_country);
  write_owners(writer, application.beneficial_owners);
  write_key(writer, "documents");
  writer.StartArray();
  for (const auto& document : application.documents) {
    writer.StartObject();
    write_key_string(writer, "type", document.type);
    write_key_string(writer, "reference", document.reference);
    writer.EndObject();
  }
  writer.EndArray();
  if (row.review_notes) write_key_string(writer, "review_notes", *row.review_notes);
  write_key_string(writer, "created_at", row.created_at);
  if (row.reviewed_at) write_key_string(writer, "reviewed_at", *row.reviewed_at);
  writer.EndObject();
}

model::Result<model::KybApplication> validate(const RequestContext& context) {
  auto body = parse_body(context, model::kKybSubmissionFields);
  if (!body.ok()) return body.error();
  const auto* countries = context.services->countries;
  const model::KybValidation validation{
      [countries](std::string_view code) { return countries->name_of(code).has_value(); },
      infra::time::format_utc(infra::time::now_utc()).substr(0, kDateLength)};
  return model::parse_kyb_application(*body, validation);
}

model::Result<HttpResponse> submit(RequestContext& context) {
  auto application = validate(context);
  if (!application.ok()) return application.error();
  // An API key's organization passed the standing check when the key authenticated.
  std::string org_id;
  std::string actor;
  if (context.api_key) {
    org_id = context.api_key->org_id;
    actor = context.api_key->key_id;
  } else {
    auto organization = session_organization(context);
    if (!organization.ok()) return organization.error();
    org_id = organization->id;
    actor = context.session->subject;
  }
  auto key = data_key(context, "kyb.data_key_invalid");
  if (!key.ok()) return key.error();
  auto submitted = submissions::submit(*context.services->db, org_id, *application, *key, actor);
  if (!submitted.ok()) return submitted.error();
  infra::log::info("kyb.submitted", {{"submission_id", submitted->id}, {"org_id", org_id}});
  return json_object_response(
      201, [&](model::json::Writer& writer) { write_submission(writer, *submitted); });
}

model::Result<HttpResponse> list(RequestContext& context) {
  auto query = parse_list_query(context, {.listable = infra::store::Listable::kyb_submissions,
                                          .id_prefix = "kyb_",
                                          .created_range = true,
                                          .filters = {"status"}});
  if (!query.ok()) return query.error();
  auto status_text = context.request.query_value("status");
  if (!status_text.ok()) return status_text.error();
  std::optional<model::KybSubmissionStatus> status;
  if (*status_text) {
    status = model::parse_kyb_submission_status(**status_text);
    if (!status) {
      return model::bad_request("status must be pending, in_review, verified or rejected.",
                                "status");
    }
  }
  auto key = data_key(context, "kyb.data_key_invalid");
  if (!key.ok()) return key.error();
  auto page =
      submissions::list(*context.services->db, context.api_key->org_id, status, *query, *key);
  if (!page.ok()) return page.error();
  return list_response<submissions::SubmissionRow>(*page, write_submission,
                                                   [](const auto& row) { return row.id; });
}

}  // namespace

void register_kyb_routes(Router& router) {
  // The scope applies to API keys; a session has no scopes and must be the owner instead.
  router.add({"POST", "/v1/kyb", Access::api_key_or_session, "organization:write", sync(submit)});
  router.add({"GET", "/v1/kyb", Access::api_key, "organization:read", sync(list)});
}

}  // namespace payrail::api
