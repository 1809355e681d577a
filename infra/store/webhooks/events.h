// Events: flat resource snapshots with a per-resource sequence, written in the same transaction
// as the state change they describe and published to the `events` topic through the outbox when
// a webhook endpoint subscribes to them.
#pragma once

#include <pqxx/pqxx>

#include <functional>
#include <optional>
#include <string>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/mode.h"

namespace payrail::infra::store::events {

struct NewEvent {
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string type;           // payout.completed
  std::string resource_type;  // payout
  std::string resource_id;
  int sequence = 1;
};

// Renders the payload for the event id and timestamp chosen here.
using PayloadWriter =
    std::function<std::string(const std::string& event_id, const std::string& occurred_at)>;

// Inserts the event, and its `events` outbox message when an active endpoint of the organization
// and mode subscribes to the event's type (nothing else consumes that topic); returns the event
// id. Both are written just before the caller's transaction commits (store::defer_row: a worker's
// batch writes its events with one statement); from then the organization row is held FOR KEY
// SHARE until the transaction ends.
std::string append(pqxx::work& tx, const NewEvent& event, const PayloadWriter& payload);

struct EventRow {
  std::string id;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string type;
  std::string resource_id;
  int sequence = 0;
  std::string payload;
  std::string created_at;
};

model::Result<std::optional<EventRow>> find(pg::Pool& pool, std::string_view event_id);
model::Result<Page<EventRow>> list(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                   const std::optional<std::string>& type, const ListQuery& query);

}  // namespace payrail::infra::store::events
