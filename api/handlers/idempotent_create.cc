#include "api/handlers/idempotent_create.h"

#include <chrono>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "api/http/worker_pool.h"
#include "api/payout_decisions.h"
#include "api/services.h"

namespace payrail::api::idempotent_create {
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
// that arrive meanwhile (store::creates::Answers).
model::Result<HttpResponse> answer_from_resource(Services& services, const Resource& resource,
                                                 const idempotency::Scope& scope,
                                                 const std::string& id,
                                                 const std::string& request_id) {
  auto answer = services.answers->answer(resource, Wanted{scope, id, request_id});
  if (!answer.ok()) return answer.error();
  return to_response(*answer);
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

HttpResponse to_response(const infra::store::creates::Answer& answer) {
  return HttpResponse::json(answer.status, answer.body);
}

void answer_now(const RequestContext& context, Responder responder, const Resource& resource,
                const idempotency::Scope& scope, const std::string& id) {
  send(responder,
       answer_from_resource(*context.services, resource, scope, id, responder.request_id()),
       false);
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

}  // namespace payrail::api::idempotent_create
