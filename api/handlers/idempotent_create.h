// The one path of an idempotent create (docs/api.md "Idempotency"), for POST /v1/payouts,
// /v1/fiat-payouts and /v1/collections: the Idempotency-Key header's rules, the replay of a used
// key (or 409 while its first request is in flight, or the answer from the resource when that
// request's process died before recording one), the create itself in a group of creates
// (store::GroupedWrites, claimed_create.h), and the answer, read and recorded for replays in
// groups (store::creates::Answers). Creates that wait for screening (payouts, fiat payouts) answer
// after the decision or a bounded wait (DecisionWait: 201, 202 pending_approval or 403
// screening_blocked); the others at once (answer_now). Each resource supplies how its answer is
// read and rendered; the mechanism is written once.
#pragma once

#include <pqxx/pqxx>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "api/context.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/answers.h"
#include "infra/store/creates/idempotency.h"

namespace payrail::api::idempotent_create {

// Idempotency-Key: required (400 bad_request with that param), 1 to 255 printable ASCII.
model::Result<std::string> idempotency_key(const HttpRequest& request);

using infra::store::creates::Resource;
using infra::store::creates::Wanted;

// The HTTP response of a recorded or rendered answer.
HttpResponse to_response(const infra::store::creates::Answer& answer);

struct CreateRequest {
  infra::store::idempotency::Scope scope;
  std::string endpoint;      // "POST /v1/payouts"
  std::string request_hash;  // of the endpoint and the normalized body
  // The same hash under the previous data key while one is configured (a hash keyed with the
  // data key must still match the requests made before a rotation); empty otherwise.
  std::string previous_request_hash;
};

// A request whose key was already used: 409 idempotency_conflict unless it is the same request
// (endpoint and normalized body).
model::Status check_same_request(const CreateRequest& request,
                                 const infra::store::idempotency::Record& record);

// The answer recorded for a used key, replayed (Idempotent-Replayed: true and the original
// Request-Id), or nullopt when the first request has not recorded one yet.
std::optional<HttpResponse> recorded_answer(const infra::store::idempotency::Record& record);

// 409 idempotency_conflict for a key still in use by its first request (Retry-After: 1).
model::Error request_in_progress();

// A request whose key was already used: the original answer (replayed), 409 idempotency_conflict
// for a different request or one still in progress, or (when the first request's process died
// before recording its answer) the answer from the resource's current state.
void respond_existing(const RequestContext& context, Responder responder, const Resource& resource,
                      const CreateRequest& request,
                      const infra::store::idempotency::Record& record);

// In live mode a retry with a used key gets its original answer even if the live checks would
// now refuse: returns the responder back when the key is unused (or the lookup is refused with
// an error already sent, then nullopt).
std::optional<Responder> replay_used_key(const RequestContext& context, Responder responder,
                                         const Resource& resource, const CreateRequest& request);

struct PendingCreate;

// Answers a create that does not wait for screening, now that it committed: the resource's
// answer, read and recorded for replays.
void answer_now(const RequestContext& context, Responder responder, const Resource& resource,
                const infra::store::idempotency::Scope& scope, const std::string& id);

// The bounded wait (PAYRAIL_SCREENING_WAIT_MS, counted from here) for screening to decide a
// resource being created, without holding a thread. It is registered before the create's
// transaction starts: screening can only decide after the create committed, so no decision is
// missed and the resource need not be re-read before waiting. The answer is read only after the
// create committed, even when the wait ran out while the create was still running.
class DecisionWait {
 public:
  DecisionWait(ContextPtr context, const Resource& resource, infra::store::idempotency::Scope scope,
               std::string id);
  ~DecisionWait();  // forgets the wait unless answer() took it over (the create failed)
  DecisionWait(const DecisionWait&) = delete;
  DecisionWait& operator=(const DecisionWait&) = delete;

  // After the create committed: answers once screening decided, or when the wait ran out (then
  // with the current status); records the answer for replays in the transaction that reads it.
  void answer(Responder responder);

 private:
  std::shared_ptr<PendingCreate> pending_;
  std::uint64_t handle_ = 0;
  bool answered_ = false;
};

}  // namespace payrail::api::idempotent_create
