#include "api/console/routes.h"

#include "api/console/oidc.h"
#include "api/console/sessions.h"
#include "api/console/sign_in.h"
#include "api/console/static_files.h"
#include "api/handlers/common.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/store/organizations/console_sessions.h"
#include "infra/store/webhooks/events.h"
#include "infra/store/lifecycle/resource_history.h"

namespace payrail::api::console {
namespace {

namespace sessions = infra::store::console_sessions;
namespace history = infra::store::resource_history;
using model::json::write_key;
using model::json::write_key_nullable;
using model::json::write_key_string;

HttpResponse console_json(HttpResponse response) {
  response.headers.emplace_back("Cache-Control", "no-store");
  add_security_headers(response);
  return response;
}

void write_sign_in_methods(model::json::Writer& writer, const RequestContext& context) {
  write_key(writer, "sign_in_methods");
  writer.StartObject();
  write_key(writer, "development");
  writer.Bool(development_sign_in_enabled(context));
  write_key(writer, "oidc");
  writer.Bool(context.services->console_sign_in != nullptr);
  writer.EndObject();
}

void write_memberships(model::json::Writer& writer,
                       const std::vector<sessions::Membership>& memberships) {
  write_key(writer, "organizations");
  writer.StartArray();
  for (const auto& membership : memberships) {
    writer.StartObject();
    write_key_string(writer, "id", membership.org_id);
    write_key_string(writer, "display_name", membership.display_name);
    write_key_string(writer, "role", membership.role);
    write_key_string(writer, "status", model::organization_status_name(membership.status));
    write_key_string(writer, "kyb_status", model::kyb_status_name(membership.kyb_status));
    writer.EndObject();
  }
  writer.EndArray();
}

// GET /console/session: who is signed in (with the CSRF token the page repeats on every change
// and the member's organizations), or how one may sign in.
model::Result<HttpResponse> session_info(RequestContext& context) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  auto cookie = read_cookie(context.request, kSessionCookie);
  std::optional<sessions::SessionRow> session;
  if (cookie.ok() && *cookie && is_secret(**cookie)) {
    auto found = sessions::find(*context.services->db, infra::crypto::sha256_hex(**cookie));
    if (!found.ok()) return found.error();
    session = *found;
  }
  std::vector<sessions::Membership> memberships;
  if (session) {
    auto found = sessions::memberships(*context.services->db, session->subject);
    if (!found.ok()) return found.error();
    memberships = std::move(*found);
  }
  return console_json(json_object_response(200, [&](model::json::Writer& writer) {
    writer.StartObject();
    write_key_string(writer, "object", "console_session");
    write_key(writer, "signed_in");
    writer.Bool(session.has_value());
    write_sign_in_methods(writer, context);
    if (session) {
      write_key_string(writer, "email", session->email);
      write_key_string(writer, "subject", session->subject);
      write_key_string(writer, "sign_in", session->sign_in);
      write_key_string(writer, "expires_at", session->expires_at);
      write_key_string(writer, "csrf_token", session->csrf_token);
      write_memberships(writer, memberships);
    }
    writer.EndObject();
  }));
}

void write_timeline(model::json::Writer& writer, const std::vector<history::TimelineRow>& rows) {
  write_key(writer, "timeline");
  writer.StartArray();
  for (const auto& row : rows) {
    writer.StartObject();
    write_key_nullable(writer, "from_status", row.from_status);
    write_key_string(writer, "to_status", row.to_status);
    write_key_string(writer, "trigger", row.trigger);
    write_key_nullable(writer, "actor", row.actor);
    write_key_string(writer, "occurred_at", row.occurred_at);
    writer.EndObject();
  }
  writer.EndArray();
}

void write_events(model::json::Writer& writer,
                  const std::vector<infra::store::events::EventRow>& events) {
  write_key(writer, "events");
  writer.StartArray();
  for (const auto& event : events) {
    writer.StartObject();
    write_key_string(writer, "id", event.id);
    write_key_string(writer, "type", event.type);
    write_key(writer, "sequence");
    writer.Int(event.sequence);
    write_key_string(writer, "created_at", event.created_at);
    write_key(writer, "payload");
    writer.RawValue(event.payload.data(), event.payload.size(), rapidjson::kObjectType);
    writer.EndObject();
  }
  writer.EndArray();
}

// GET /console/api/{payouts|fiat-payouts|collections}/{id}/history: the resource's timeline of
// status changes (who decided, for approvals) and the events written for it.
model::Result<HttpResponse> resource_history(RequestContext& context,
                                             std::string_view resource_type) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  const auto& id = context.path_param("id");
  return context.services->db->transact([&](pqxx::work& tx) -> model::Result<HttpResponse> {
    if (!history::belongs_to(tx, resource_type, id, principal.org_id, principal.mode)) {
      return model::Error::make(model::ErrorCode::resource_missing, "No such resource.");
    }
    const auto timeline = history::timeline(tx, resource_type, id);
    const auto events = history::events_of(tx, principal.org_id, principal.mode, id);
    return console_json(json_object_response(200, [&](model::json::Writer& writer) {
      writer.StartObject();
      write_key_string(writer, "object", "resource_history");
      write_key_string(writer, "resource_id", id);
      write_timeline(writer, timeline);
      write_events(writer, events);
      writer.EndObject();
    }));
  });
}

void write_event_delivery(model::json::Writer& writer, const history::EventDeliveryRow& delivery) {
  writer.StartObject();
  write_key_string(writer, "id", delivery.id);
  write_key_string(writer, "endpoint_id", delivery.endpoint_id);
  write_key_string(writer, "endpoint_url", delivery.endpoint_url);
  write_key_string(writer, "status", delivery.status);
  write_key(writer, "attempt_count");
  writer.Int(delivery.attempt_count);
  write_key_nullable(writer, "next_attempt_at", delivery.next_attempt_at);
  write_key(writer, "attempts");
  writer.StartArray();
  for (const auto& attempt : delivery.attempts) {
    writer.StartObject();
    write_key(writer, "number");
    writer.Int(attempt.number);
    write_key_string(writer, "attempted_at", attempt.attempted_at);
    write_key(writer, "status_code");
    if (attempt.status_code) {
      writer.Int(*attempt.status_code);
    } else {
      writer.Null();
    }
    write_key(writer, "latency_ms");
    writer.Int64(attempt.latency_ms);
    write_key_nullable(writer, "error", attempt.error);
    writer.EndObject();
  }
  writer.EndArray();
  writer.EndObject();
}

// GET /console/api/events/{id}/deliveries: one event and every delivery of it, with attempts.
model::Result<HttpResponse> event_deliveries(RequestContext& context) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  const auto& principal = *context.api_key;
  const auto& id = context.path_param("id");
  auto event = infra::store::events::find(*context.services->db, id);
  if (!event.ok()) return event.error();
  if (!*event || (*event)->org_id != principal.org_id || (*event)->mode != principal.mode) {
    return model::Error::make(model::ErrorCode::resource_missing, "No such event.");
  }
  return context.services->db->transact([&](pqxx::work& tx) -> model::Result<HttpResponse> {
    const auto deliveries = history::deliveries_of_event(tx, principal.org_id, principal.mode, id);
    return console_json(json_object_response(200, [&](model::json::Writer& writer) {
      writer.StartObject();
      write_key_string(writer, "object", "event_deliveries");
      write_key(writer, "event");
      writer.StartObject();
      write_key_string(writer, "id", (*event)->id);
      write_key_string(writer, "type", (*event)->type);
      write_key_string(writer, "resource_id", (*event)->resource_id);
      write_key(writer, "sequence");
      writer.Int((*event)->sequence);
      write_key_string(writer, "created_at", (*event)->created_at);
      write_key(writer, "payload");
      writer.RawValue((*event)->payload.data(), (*event)->payload.size(), rapidjson::kObjectType);
      writer.EndObject();
      write_key(writer, "deliveries");
      writer.StartArray();
      for (const auto& delivery : deliveries) write_event_delivery(writer, delivery);
      writer.EndArray();
      writer.EndObject();
    }));
  });
}

void register_files(Router& router) {
  router.add({"GET", "/console", Access::open, "", sync([](RequestContext&) {
                HttpResponse moved;
                moved.status = 308;
                moved.headers.emplace_back("Location", "/console/");
                return model::Result<HttpResponse>(std::move(moved));
              })});
  for (const auto& file : web_files()) {
    const auto path =
        file.name == "index.html" ? std::string("/console/") : "/console/" + std::string(file.name);
    router.add({"GET", path, Access::open, "", sync([&file](RequestContext&) {
                  return model::Result<HttpResponse>(file_response(file));
                })});
  }
}

void register_history(Router& router) {
  router.add({"GET", "/console/api/payouts/{id}/history", Access::api_key, "payouts:read",
              sync([](RequestContext& context) { return resource_history(context, "payout"); })});
  router.add(
      {"GET", "/console/api/fiat-payouts/{id}/history", Access::api_key, "payouts:read",
       sync([](RequestContext& context) { return resource_history(context, "fiat_payout"); })});
  router.add(
      {"GET", "/console/api/collections/{id}/history", Access::api_key, "collections:read",
       sync([](RequestContext& context) { return resource_history(context, "collection"); })});
  router.add({"GET", "/console/api/events/{id}/deliveries", Access::api_key, "webhooks:read",
              sync(event_deliveries)});
}

}  // namespace

Router build_console_router() {
  Router router;
  register_files(router);
  router.add({"GET", "/console/session", Access::open, "", sync(session_info)});
  register_sign_in_routes(router);
  register_history(router);
  return router;
}

bool is_console_path(std::string_view path) {
  return path == "/console" || path.starts_with("/console/");
}

}  // namespace payrail::api::console
