// Webhook deliveries and their attempts (0003_webhooks.sql).
//
// One delivery per (event, endpoint). The worker claims due deliveries with a lease
// (locked_until, locked_by = a token unique to the claim); every later write for that claim is
// guarded by the token, so a process whose lease expired can never overwrite the outcome of the
// process that took the delivery over. An attempt is written before the request is sent and
// completed after it, so an attempt cut short by a crash stays visible.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/sql/listing.h"
#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::webhook_deliveries {

constexpr int kAttemptsListedMax = 50;  // most recent attempts shown per delivery
constexpr int kClaimBatchMax = 64;

// --- Worker side ---------------------------------------------------------------------------

// Fan-out: one pending delivery, due now, per active endpoint of the event's organization and
// mode subscribed to its type (endpoints locked FOR SHARE in id order: a concurrent delete waits
// for this transaction, then cancels what it created), unless the event's message was consumed
// already (outbox::is_consumed). Existing (event, endpoint) deliveries are left alone; an
// unknown event gets none. The deliveries are deferred to the end of the transaction: a batch's
// are one statement.
struct FanOutMessage {
  std::string message_id;
  std::string event_id;
};
struct FanOut {
  bool consumed = false;  // applied before: nothing to do
  int deliveries = 0;     // scheduled otherwise
};

// A worker batch's fan-outs read with one statement ahead of its messages (the `events` topic's
// prefetch) instead of one per message, kept in the transaction for fan_out().
void prefetch_fan_outs(pqxx::work& tx, const std::vector<FanOutMessage>& messages);

// The message's fan-out, from what its batch's prefetch read, else read now for it alone.
FanOut fan_out(pqxx::work& tx, const FanOutMessage& message);

struct ClaimedDelivery {
  std::string delivery_id;
  std::string endpoint_id;
  std::string event_id;
  std::string event_type;
  model::Mode mode = model::Mode::test;
  std::string url;
  std::string sealed_secret;
  std::string payload;  // the event row's payload text, delivered byte for byte
  int generation = 0;
  int schedule_step = 0;  // at the claim: settling "as claimed" needs no re-read (finish_attempt)
  std::string lease_token;
};

// Leases up to `limit` due deliveries of active endpoints for `lease_ms`.
model::Result<std::vector<ClaimedDelivery>> claim(pg::Pool& pool, std::string_view lease_token,
                                                  std::int64_t lease_ms, int limit);

// Milliseconds until the earliest unleased pending delivery is due (0 if one is due now);
// nullopt when nothing is pending.
model::Result<std::optional<std::int64_t>> next_due_in_ms(pg::Pool& pool);

// The re-check right before sending: still ours, still pending, endpoint still active. Records
// the attempt as started and returns its number; nullopt means do not send (the lease is
// released).
model::Result<std::optional<int>> begin_attempt(pg::Pool& pool, const ClaimedDelivery& delivery);

struct AttemptOutcome {
  int number = 0;
  std::optional<int> status_code;
  std::int64_t latency_ms = 0;
  std::optional<std::string> error;
  bool succeeded = false;
};

enum class Settled {
  succeeded,
  retry_scheduled,
  failed,
  redelivery_requested,
  unchanged,
  lease_lost
};
std::string_view settled_name(Settled settled);

// Completes the attempt and moves the delivery on: succeeded, retried after the schedule's next
// delay (jittered by `unit_random`), or failed once the schedule is exhausted.
model::Result<Settled> finish_attempt(pg::Pool& pool, const ClaimedDelivery& delivery,
                                      const AttemptOutcome& outcome,
                                      std::span<const std::int64_t> schedule_ms,
                                      double unit_random);

// Gives a claimed delivery back without an attempt (shutdown, or not deliverable any more).
model::Status release(pg::Pool& pool, const ClaimedDelivery& delivery);

// --- API side ------------------------------------------------------------------------------

struct AttemptRow {
  int number = 0;
  std::string attempted_at;
  std::optional<int> status_code;
  std::int64_t latency_ms = 0;
  std::optional<std::string> error;
};

struct DeliveryRow {
  std::string id;
  std::string endpoint_id;
  std::string event_id;
  std::string event_type;
  std::string status;
  int attempt_count = 0;
  std::optional<std::string> next_attempt_at;
  std::string created_at;
  std::vector<AttemptRow> attempts;  // oldest first, at most kAttemptsListedMax (the latest)
};

// Deliveries of one endpoint of the organization and mode, newest first.
model::Result<Page<DeliveryRow>> list_for_endpoint(pg::Pool& pool, std::string_view org_id,
                                                   model::Mode mode, std::string_view endpoint_id,
                                                   const ListQuery& query);

// Whether `delivery_id` is a delivery of that endpoint (a valid `starting_after`).
model::Result<bool> cursor_exists(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                                  std::string_view endpoint_id, std::string_view delivery_id);

// Schedules the event again to every active endpoint of its organization and mode subscribed to
// its type: a finished delivery starts a fresh schedule, a pending one becomes due now, a
// missing one is created. False when the event is not the organization's in that mode.
model::Result<bool> redeliver(pg::Pool& pool, std::string_view org_id, model::Mode mode,
                              std::string_view event_id);

}  // namespace payrail::infra::store::webhook_deliveries
