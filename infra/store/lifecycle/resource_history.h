// What the web console shows on a resource's page beyond the resource itself: the timeline of its
// status changes, the events written for it, and the delivery attempts of an event. Reads only.
#pragma once

#include <pqxx/pqxx>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/webhooks/events.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::resource_history {

struct TimelineRow {
  std::optional<std::string> from_status;  // nullopt at creation
  std::string to_status;
  std::string trigger;
  std::optional<std::string> actor;  // the member or operator who decided; nullopt: the system
  std::string occurred_at;
};

// Whether the payout, fiat payout or collection is the organization's in that mode
// (resource_type "payout", "fiat_payout" or "collection").
bool belongs_to(pqxx::transaction_base& tx, std::string_view resource_type, std::string_view id,
                std::string_view org_id, model::Mode mode);

// The status changes of one resource, oldest first. Payouts keep their own log
// (payout_transitions, whose approve and reject were decided by the payout's approved_by); every
// other resource type ("fiat_payout", "collection", "kyb_submission", "organization") is in
// resource_transitions. This is the one place that knows where each type's log is.
std::vector<TimelineRow> timeline(pqxx::transaction_base& tx, std::string_view resource_type,
                                  std::string_view id);

// The events written for the resource, oldest first (at most 200), when the resource is the
// organization's in that mode.
std::vector<events::EventRow> events_of(pqxx::transaction_base& tx, std::string_view org_id,
                                        model::Mode mode, std::string_view resource_id);

struct AttemptRow {
  int number = 0;
  std::string attempted_at;
  std::optional<int> status_code;
  long latency_ms = 0;
  std::optional<std::string> error;
};

struct EventDeliveryRow {
  std::string id;
  std::string endpoint_id;
  std::string endpoint_url;
  std::string status;
  int attempt_count = 0;
  std::optional<std::string> next_attempt_at;
  std::vector<AttemptRow> attempts;  // oldest first, the latest 50
};

// Every delivery of the event to the organization's endpoints in that mode, with its attempts.
std::vector<EventDeliveryRow> deliveries_of_event(pqxx::transaction_base& tx,
                                                  std::string_view org_id, model::Mode mode,
                                                  std::string_view event_id);

}  // namespace payrail::infra::store::resource_history
