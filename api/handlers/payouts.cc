// POST /v1/payouts, GET /v1/payouts, GET /v1/payouts/{id}, POST /v1/payouts/{id}/cancel,
// POST /v1/payouts/{id}/approve, POST /v1/payouts/{id}/reject.
#include <array>

#include "api/handlers/common.h"
#include "api/handlers/handlers.h"
#include "api/handlers/payout_create.h"
#include "api/http/pagination.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/store/outbox/relay.h"
#include "infra/store/payouts/payouts.h"

namespace payrail::api {
namespace {

namespace payouts = infra::store::payouts;

HttpResponse payout_response(int status, const payouts::PayoutRow& payout) {
  return HttpResponse::json(status, model::payout_json(payout.resource));
}

model::Result<HttpResponse> get_payout(RequestContext& context) {
  const auto& principal = *context.api_key;
  auto found = payouts::find(*context.services->db, principal.org_id, principal.mode,
                             context.path_param("id"));
  if (!found.ok()) return found.error();
  if (!*found) return model::Error::make(model::ErrorCode::resource_missing, "No such payout.");
  return payout_response(200, **found);
}

model::Result<HttpResponse> list_payouts(RequestContext& context) {
  auto query = parse_list_query(context, {.listable = infra::store::Listable::payouts,
                                          .id_prefix = "po_",
                                          .created_range = true,
                                          .filters = {"status"}});
  if (!query.ok()) return query.error();
  auto status = context.request.query_value("status");
  if (!status.ok()) return status.error();
  if (*status && !model::parse_payout_status(**status)) {
    return model::bad_request("status must be one of the payout statuses.", "status");
  }
  const auto& principal = *context.api_key;
  auto page =
      payouts::list(*context.services->db, principal.org_id, principal.mode, *status, *query);
  if (!page.ok()) return page.error();
  return list_response<payouts::PayoutRow>(
      *page,
      [](model::json::Writer& writer, const payouts::PayoutRow& payout) {
        writer.StartObject();
        model::write_payout_members(writer, payout.resource);
        writer.EndObject();
      },
      [](const payouts::PayoutRow& payout) { return payout.resource.id; });
}

model::Result<HttpResponse> cancel_payout(RequestContext& context) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto cancelled = payouts::cancel(*context.services->db, principal.org_id, principal.mode,
                                   context.path_param("id"));
  if (!cancelled.ok()) return cancelled.error();
  return payout_response(200, *cancelled);
}

// Approve and reject are for members of the owning organization (identity-provider session),
// while it is active (session_member: 403 org_suspended otherwise); anyone else gets 404, as for
// a foreign id.
model::Result<HttpResponse> decide_held_payout(RequestContext& context, bool approve) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  auto& db = *context.services->db;
  const auto& id = context.path_param("id");
  auto found = payouts::find_any(db, id);
  if (!found.ok()) return found.error();
  if (!*found) return model::Error::make(model::ErrorCode::resource_missing, "No such payout.");
  const auto& org_id = (*found)->org_id;
  if (auto member = session_member(context, org_id); !member.ok()) {
    if (member.error().code != model::ErrorCode::resource_missing) return member.error();
    return model::Error::make(model::ErrorCode::resource_missing, "No such payout.");
  }
  const auto& subject = context.session->subject;
  auto decided = approve ? payouts::approve(db, org_id, id, subject)
                         : payouts::reject(db, org_id, id, subject);
  if (!decided.ok()) return decided.error();
  if (approve) context.services->relay->wake();
  return payout_response(200, *decided);
}

}  // namespace

void register_payout_routes(Router& router) {
  router.add({"POST", "/v1/payouts", Access::api_key, "payouts:write", create_payout});
  router.add({"GET", "/v1/payouts", Access::api_key, "payouts:read", sync(list_payouts)});
  router.add({"GET", "/v1/payouts/{id}", Access::api_key, "payouts:read", sync(get_payout)});
  router.add(
      {"POST", "/v1/payouts/{id}/cancel", Access::api_key, "payouts:write", sync(cancel_payout)});
  router.add({"POST", "/v1/payouts/{id}/approve", Access::session, "",
              sync([](RequestContext& context) { return decide_held_payout(context, true); })});
  router.add({"POST", "/v1/payouts/{id}/reject", Access::session, "",
              sync([](RequestContext& context) { return decide_held_payout(context, false); })});
}

}  // namespace payrail::api
