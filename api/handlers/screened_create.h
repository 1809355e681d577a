// The one implementation of idempotent creates (docs/api.md "Idempotency"). Every create
// (POST /v1/payouts, /v1/fiat-payouts, /v1/collections) uses the Idempotency-Key header's rules
// and the replay of a used key from here. Creates that wait for screening (payouts, fiat payouts)
// also use the bounded wait for the decision before answering (201, 202 pending_approval or 403
// screening_blocked) and the recovery of a request whose process died before recording its
// answer. Each resource supplies how its answer is read and rendered; the mechanism is written
// once.
#pragma once

#include <pqxx/pqxx>

#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "api/context.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/idempotency.h"

namespace payrail::api::screened_create {

// Idempotency-Key: required (400 bad_request with that param), 1 to 255 printable ASCII.
model::Result<std::string> idempotency_key(const HttpRequest& request);

// The answer one create waits for: its key, its resource and its request.
struct Wanted {
  infra::store::idempotency::Scope scope;
  std::string id;
  std::string request_id;
};

struct Resource {
  // Reads the resources in `tx` (one statement for all) and renders each create's answer for
  // its current status, in order; nullopt for one that does not exist in its create's scope
  // (which a committed create rules out).
  std::function<std::vector<std::optional<HttpResponse>>(pqxx::transaction_base& tx,
                                                         const std::vector<Wanted>& wanted)>
      answer;
};

// Resource::answer from a repository's find_many(tx, ids) and a rendering of one row.
template <class FindMany, class Render>
std::vector<std::optional<HttpResponse>> answer_rows(pqxx::transaction_base& tx,
                                                     const std::vector<Wanted>& wanted,
                                                     FindMany find_many, Render render) {
  std::vector<std::string> ids;
  for (const auto& one : wanted) ids.push_back(one.id);
  auto rows = find_many(tx, ids);
  std::vector<std::optional<HttpResponse>> answers;
  for (const auto& one : wanted) {
    std::optional<HttpResponse> answer;
    for (const auto& row : rows) {
      if (row.resource.id == one.id && row.org_id == one.scope.org_id &&
          row.resource.mode == one.scope.mode) {
        answer = render(row, one.request_id);
      }
    }
    answers.push_back(std::move(answer));
  }
  return answers;
}

// The answers of creates are read and recorded in groups: the screening worker decides a batch
// of payouts in one transaction and notifies them together, and each answer is a read of the
// resource and a record of the answer for replays. The answers waiting while a group is written
// are written next, together: one read per resource kind and one record statement for them all
// (Pool::autocommit, no transaction: the read has no effect, and the record only fills in keys
// with no answer yet). Nothing waits on purpose: an answer that finds no group being written is
// written at once, alone. At most `group_max` answers a group, and one group at a time.
class Answers {
 public:
  Answers(infra::pg::Pool& pool, std::size_t group_max);
  Answers(const Answers&) = delete;
  Answers& operator=(const Answers&) = delete;

  // Blocks until the answer is read and recorded. When an answer was recorded for the key
  // before (a retry that found the first request abandoned, or this work before a lost
  // connection made it run again), that one is returned: the first answer stands.
  model::Result<HttpResponse> answer(const Resource& resource, Wanted wanted);

  // Answers waiting for a group (not yet being written).
  std::size_t waiting();

 private:
  struct Item {
    const Resource* resource;
    Wanted wanted;
    std::optional<model::Result<HttpResponse>> result;
  };
  std::vector<Item*> take_group();  // under mutex_
  void write_group(const std::vector<Item*>& group);

  infra::pg::Pool& pool_;
  std::size_t group_max_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item*> waiting_;
  bool writing_ = false;
};

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

}  // namespace payrail::api::screened_create
