#include "api/handlers/screened_create.h"

#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <tuple>
#include <utility>

#include "api/http/worker_pool.h"
#include "api/payout_decisions.h"
#include "api/services.h"

namespace payrail::api::screened_create {
namespace {

namespace idempotency = infra::store::idempotency;
using model::Error;
using model::ErrorCode;

constexpr std::size_t kIdempotencyKeyLengthMax = 255;
constexpr int kAbandonedAfterExtraSeconds = 10;

// A replay is the original response: status, body and Request-Id (which an error body repeats).
HttpResponse replayed(HttpResponse response, const std::optional<std::string>& request_id) {
  response.headers.emplace_back("Idempotent-Replayed", "true");
  if (request_id) response.headers.emplace_back("Request-Id", *request_id);
  return response;
}

// Reads the resource, builds the answer and records it for replays, together with the answers
// that arrive meanwhile (Answers).
model::Result<HttpResponse> answer_from_resource(Services& services, const Resource& resource,
                                                 const idempotency::Scope& scope,
                                                 const std::string& id,
                                                 const std::string& request_id) {
  return services.answers->answer(resource, Wanted{scope, id, request_id});
}

Error internal_error() {
  return Error::make(ErrorCode::internal_error, "An internal error occurred.");
}

// The answer recorded for the key first: that one is the answer, every time.
model::Result<HttpResponse> recorded_first(pqxx::transaction_base& tx,
                                           const idempotency::Scope& scope) {
  const auto record = idempotency::find(tx, scope);
  if (!record || !record->response_status || !record->response_body) return internal_error();
  return HttpResponse::json(*record->response_status, *record->response_body);
}

void send(Responder& responder, model::Result<HttpResponse> response, bool replay) {
  if (!response.ok()) return responder.send_error(response.error());
  responder.send(replay ? replayed(std::move(response.value()), std::nullopt)
                        : std::move(response.value()));
}

}  // namespace

model::Result<std::string> idempotency_key(const HttpRequest& request) {
  const auto key = request.header("Idempotency-Key");
  if (!key) return model::bad_request("The Idempotency-Key header is required.", "Idempotency-Key");
  bool printable = !key->empty() && key->size() <= kIdempotencyKeyLengthMax;
  for (const char c : *key) printable = printable && c >= 0x20 && c <= 0x7E;
  if (!printable) {
    return model::bad_request("Idempotency-Key must be 1 to 255 printable ASCII characters.",
                              "Idempotency-Key");
  }
  return std::string(*key);
}

model::Status check_same_request(const CreateRequest& request, const idempotency::Record& record) {
  const bool same_hash = record.request_hash == request.request_hash ||
                         (!request.previous_request_hash.empty() &&
                          record.request_hash == request.previous_request_hash);
  if (record.endpoint == request.endpoint && same_hash) return model::ok_status();
  return Error::make(
      ErrorCode::idempotency_conflict,
      "This Idempotency-Key was already used with a different request; use a new key.");
}

std::optional<HttpResponse> recorded_answer(const idempotency::Record& record) {
  if (!record.response_status || !record.response_body) return std::nullopt;
  return replayed(HttpResponse::json(*record.response_status, *record.response_body),
                  record.response_request_id);
}

Error request_in_progress() {
  auto error = Error::make(ErrorCode::idempotency_conflict,
                           "A request with this Idempotency-Key is still in progress; retry "
                           "after a second.");
  error.headers["Retry-After"] = "1";
  return error;
}

void respond_existing(const RequestContext& context, Responder responder, const Resource& resource,
                      const CreateRequest& request, const idempotency::Record& record) {
  if (auto same = check_same_request(request, record); !same.ok()) {
    return responder.send_error(same.error());
  }
  if (auto answer = recorded_answer(record)) return responder.send(std::move(*answer));
  const int abandoned_after_seconds =
      context.services->config.screening_wait_ms / 1000 + kAbandonedAfterExtraSeconds;
  if (record.age_seconds < abandoned_after_seconds) {
    return responder.send_error(request_in_progress());
  }
  // The first request never recorded its answer (its process died): answer from the resource.
  send(responder,
       answer_from_resource(*context.services, resource, request.scope, record.resource_id,
                            responder.request_id()),
       true);
}

std::optional<Responder> replay_used_key(const RequestContext& context, Responder responder,
                                         const Resource& resource, const CreateRequest& request) {
  auto existing = idempotency::find(*context.services->db, request.scope);
  if (!existing.ok()) {
    responder.send_error(existing.error());
    return std::nullopt;
  }
  if (*existing) {
    respond_existing(context, std::move(responder), resource, request, **existing);
    return std::nullopt;
  }
  return responder;
}

Answers::Answers(infra::pg::Pool& pool, std::size_t group_max)
    : pool_(pool), group_max_(std::max<std::size_t>(1, group_max)) {}

model::Result<HttpResponse> Answers::answer(const Resource& resource, Wanted wanted) {
  Item item{&resource, std::move(wanted), std::nullopt};
  std::unique_lock lock(mutex_);
  waiting_.push_back(&item);
  while (!item.result) {
    if (writing_) {
      changed_.wait(lock);
      continue;
    }
    auto group = take_group();
    writing_ = true;
    lock.unlock();
    try {
      write_group(group);
    } catch (const std::exception&) {
      // Never leave an answer without a result: its thread would wait for ever.
      for (auto* member : group) {
        if (!member->result) member->result = internal_error();
      }
    }
    lock.lock();
    writing_ = false;
    changed_.notify_all();
  }
  return std::move(*item.result);
}

std::size_t Answers::waiting() {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

// The oldest waiting answers, one per key: complete_many() records one answer per key.
std::vector<Answers::Item*> Answers::take_group() {
  std::vector<Item*> group;
  std::set<std::tuple<std::string, model::Mode, std::string>> keys;
  for (auto it = waiting_.begin(); it != waiting_.end() && group.size() < group_max_;) {
    const auto& scope = (*it)->wanted.scope;
    if (!keys.emplace(scope.org_id, scope.mode, scope.key).second) {
      ++it;
      continue;
    }
    group.push_back(*it);
    it = waiting_.erase(it);
  }
  return group;
}

void Answers::write_group(const std::vector<Item*>& group) {
  using Results = std::vector<model::Result<HttpResponse>>;
  auto results = pool_.autocommit([&](pqxx::nontransaction& tx) -> model::Result<Results> {
    std::vector<std::optional<HttpResponse>> responses(group.size());
    std::map<const Resource*, std::vector<std::size_t>> by_resource;
    for (std::size_t i = 0; i < group.size(); ++i) by_resource[group[i]->resource].push_back(i);
    for (const auto& [resource, indices] : by_resource) {
      std::vector<Wanted> wanted;
      for (const auto i : indices) wanted.push_back(group[i]->wanted);
      auto answers = resource->answer(tx, wanted);
      for (std::size_t k = 0; k < indices.size(); ++k)
        responses[indices[k]] = std::move(answers[k]);
    }
    std::vector<idempotency::Answer> records;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!responses[i]) continue;
      records.push_back({&group[i]->wanted.scope, responses[i]->status, &responses[i]->body,
                         &group[i]->wanted.request_id});
    }
    const auto stored = idempotency::complete_many(tx, records);
    Results out;
    std::size_t record = 0;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!responses[i]) {
        out.push_back(internal_error());
      } else if (stored[record++]) {
        out.push_back(std::move(*responses[i]));
      } else {
        out.push_back(recorded_first(tx, group[i]->wanted.scope));
      }
    }
    return out;
  });
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (results.ok()) {
      group[i]->result = std::move(results.value()[i]);
    } else {
      group[i]->result = results.error();
    }
  }
}

struct PendingCreate {
  ContextPtr context;
  const Resource* resource;
  idempotency::Scope scope;
  std::string id;
  std::mutex mutex;
  std::optional<Responder> responder;  // given once the create committed
  bool fired = false;                  // decided, or the wait ran out

  // Whichever of the two comes second answers.
  std::optional<Responder> fire() {
    std::lock_guard lock(mutex);
    fired = true;
    return std::exchange(responder, std::nullopt);
  }
  std::optional<Responder> give(Responder given) {
    std::lock_guard lock(mutex);
    if (fired) return given;
    responder = std::move(given);
    return std::nullopt;
  }
};

namespace {

void finish_create(const PendingCreate& pending, Responder& responder) {
  send(responder,
       answer_from_resource(*pending.context->services, *pending.resource, pending.scope,
                            pending.id, responder.request_id()),
       false);
}

}  // namespace

DecisionWait::DecisionWait(ContextPtr context, const Resource& resource, idempotency::Scope scope,
                           std::string id)
    : pending_(std::make_shared<PendingCreate>()) {
  auto& services = *context->services;
  pending_->context = std::move(context);
  pending_->resource = &resource;
  pending_->scope = std::move(scope);
  pending_->id = std::move(id);
  if (services.config.screening_wait_ms == 0) {
    pending_->fired = true;
    return;
  }
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::milliseconds(services.config.screening_wait_ms);
  auto* workers = services.workers;
  handle_ = services.payout_decisions->wait(pending_->id, deadline, [pending = pending_, workers] {
    auto responder = pending->fire();
    if (!responder) return;
    auto answer = [pending, given = std::make_shared<Responder>(std::move(*responder))] {
      finish_create(*pending, *given);
    };
    if (!workers->try_submit(answer)) answer();
  });
}

DecisionWait::~DecisionWait() {
  if (!answered_ && handle_ != 0) pending_->context->services->payout_decisions->forget(handle_);
}

void DecisionWait::answer(Responder responder) {
  answered_ = true;
  if (auto now = pending_->give(std::move(responder))) finish_create(*pending_, *now);
}

}  // namespace payrail::api::screened_create
