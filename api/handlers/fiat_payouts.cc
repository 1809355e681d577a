// POST /v1/fiat-payouts (fiat_payout_create.cc), GET /v1/fiat-payouts, GET /v1/fiat-payouts/{id},
// POST /v1/fiat-payouts/{id}/cancel, POST /v1/fiat-payouts/{id}/approve,
// POST /v1/fiat-payouts/{id}/reject.
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "api/handlers/common.h"
#include "api/handlers/fiat_payout_create.h"
#include "api/handlers/handlers.h"
#include "api/http/pagination.h"
#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/adapters/catalog/countries.h"
#include "infra/store/outbox/relay.h"

namespace payrail::api {
namespace {

namespace fiat_payouts = infra::store::fiat_payouts;

HttpResponse fiat_payout_response(const fiat_payouts::FiatPayoutRow& payout) {
  return HttpResponse::json(200, model::fiat_payout_json(payout.resource));
}

model::Error missing() {
  return model::Error::make(model::ErrorCode::resource_missing, "No such fiat payout.");
}

model::Result<HttpResponse> get_fiat_payout(RequestContext& context) {
  const auto& principal = *context.api_key;
  auto found = fiat_payouts::find(*context.services->db, principal.org_id, principal.mode,
                                  context.path_param("id"));
  if (!found.ok()) return found.error();
  if (!*found) return missing();
  return fiat_payout_response(**found);
}

model::Result<fiat_payouts::ListFilters> list_filters(const RequestContext& context) {
  auto status = context.request.query_value("status");
  if (!status.ok()) return status.error();
  if (*status && !model::parse_fiat_payout_status(**status)) {
    return model::bad_request("status must be one of the fiat payout statuses.", "status");
  }
  auto country = context.request.query_value("country");
  if (!country.ok()) return country.error();
  if (*country && !context.services->countries->name_of(**country)) {
    return model::bad_request("country must be an upper-case ISO 3166-1 alpha-2 code such as MX.",
                              "country");
  }
  return fiat_payouts::ListFilters{*status, *country};
}

model::Result<HttpResponse> list_fiat_payouts(RequestContext& context) {
  auto query = parse_list_query(context, {.listable = infra::store::Listable::fiat_payouts,
                                          .id_prefix = "fpo_",
                                          .created_range = true,
                                          .filters = {"status", "country"}});
  if (!query.ok()) return query.error();
  auto filters = list_filters(context);
  if (!filters.ok()) return filters.error();
  const auto& principal = *context.api_key;
  auto page =
      fiat_payouts::list(*context.services->db, principal.org_id, principal.mode, *filters, *query);
  if (!page.ok()) return page.error();
  return list_response<fiat_payouts::FiatPayoutRow>(
      *page,
      [](model::json::Writer& writer, const fiat_payouts::FiatPayoutRow& payout) {
        model::write_fiat_payout_list_item(writer, payout.resource);
      },
      [](const fiat_payouts::FiatPayoutRow& payout) { return payout.resource.id; });
}

model::Result<HttpResponse> cancel_fiat_payout(RequestContext& context) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  auto cancelled = fiat_payouts::cancel(*context.services->db, principal.org_id, principal.mode,
                                        context.path_param("id"));
  if (!cancelled.ok()) return cancelled.error();
  return fiat_payout_response(*cancelled);
}

// Approve and reject are for members of the owning organization (identity-provider session),
// while it is active (session_member: 403 org_suspended otherwise); anyone else gets 404, as for
// a foreign id.
model::Result<HttpResponse> decide_held_fiat_payout(RequestContext& context, bool approve) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  auto& db = *context.services->db;
  const auto& id = context.path_param("id");
  auto found = fiat_payouts::find_any(db, id);
  if (!found.ok()) return found.error();
  if (!*found) return missing();
  const auto& org_id = (*found)->org_id;
  if (auto member = session_member(context, org_id); !member.ok()) {
    if (member.error().code != model::ErrorCode::resource_missing) return member.error();
    return missing();
  }
  const auto& subject = context.session->subject;
  auto decided = approve ? fiat_payouts::approve(db, org_id, id, subject)
                         : fiat_payouts::reject(db, org_id, id, subject);
  if (!decided.ok()) return decided.error();
  if (approve) context.services->relay->wake();
  return fiat_payout_response(*decided);
}

}  // namespace

void register_fiat_payout_routes(Router& router) {
  router.add({"POST", "/v1/fiat-payouts", Access::api_key, "payouts:write", create_fiat_payout});
  router.add({"GET", "/v1/fiat-payouts", Access::api_key, "payouts:read", sync(list_fiat_payouts)});
  router.add(
      {"GET", "/v1/fiat-payouts/{id}", Access::api_key, "payouts:read", sync(get_fiat_payout)});
  router.add({"POST", "/v1/fiat-payouts/{id}/cancel", Access::api_key, "payouts:write",
              sync(cancel_fiat_payout)});
  router.add(
      {"POST", "/v1/fiat-payouts/{id}/approve", Access::session, "",
       sync([](RequestContext& context) { return decide_held_fiat_payout(context, true); })});
  router.add(
      {"POST", "/v1/fiat-payouts/{id}/reject", Access::session, "",
       sync([](RequestContext& context) { return decide_held_fiat_payout(context, false); })});
}

}  // namespace payrail::api
