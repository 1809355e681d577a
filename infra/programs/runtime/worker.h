// The scaffolding every Kafka worker role shares: configuration, the Postgres pool, the outbox
// relay (woken after each batch applied), one consumer-group member for the role's topics (a
// role may apply several topics, e.g. screening applies payouts.requested and
// fiat_payouts.requested; all of them name the role's group as their consumer), and the one way
// a role applies messages: in batches, one transaction per batch.
//
// The batch is first applied without savepoints; if a message fails, the batch is applied again
// with a savepoint per message, the failing one is rolled back to its savepoint and the rest of
// the batch is applied. Rows a message defers to the commit (store::defer_row: balance changes,
// consumed marks) are written inside its savepoint on that second pass, so a failing write is
// isolated with its message.
// If the failure is a dependency being unavailable (sanctions lists not loaded, a provider or
// chain adapter down, a confirmation not there yet) the message is retried with backoff and
// counts nothing: every message would fail alike. Any other failure is the message's own: it is
// counted in message_failures (in the same transaction), retried with backoff, and parked after
// PAYRAIL_MESSAGE_ATTEMPTS_MAX attempts so that its partition moves on; an operator lists it
// (`payrail message-failures`) and re-drives it once fixed (`payrail message-redrive`). Later
// messages of a failing message's partition wait for it (retried with it), so a partition is
// never applied out of order. A database failure (connection lost, serialization failure,
// deadlock) retries the whole batch.
#pragma once

#include <pqxx/pqxx>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "infra/plumbing/kafka/consumer.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/config/config.h"
#include "infra/store/outbox/relay.h"
#include "topics/registry.h"

namespace payrail::infra::runtime {

struct WorkerContext {
  Config config;
  pg::Pool& pool;
  store::outbox::Relay& relay;
  std::string consumer_group;
};

// Reads, and locks where it must, what the batch's messages need with one statement ahead of
// them, keeping the rows for the messages (store::keep_locked_row) instead of one statement per
// message; each message takes its rows (store::take_locked_row) and reads again only what was not
// kept. It runs at the start of every pass of the batch's transaction, over the messages in it.
using Prefetch = void (*)(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages);

// The usual prefetch: the rows of the messages' resources, locked (e.g. payouts::lock_all).
template <void (*LockIds)(pqxx::work&, const std::vector<std::string>&)>
void lock_resources(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages) {
  std::vector<std::string> resource_ids;
  resource_ids.reserve(messages.size());
  for (const auto* message : messages) resource_ids.push_back(message->resource_id);
  LockIds(tx, resource_ids);
}

// The messages of one topic from one consumer batch, in partition order, and what became of
// each. A message is active until it is finished (applied, or nothing to do) or failed.
class Batch {
 public:
  Batch(const topics::TopicSpec& topic, std::vector<kafka::Delivery> deliveries,
        Prefetch prefetch = nullptr);

  std::size_t size() const { return deliveries_.size(); }
  const topics::Envelope& message(std::size_t index) const { return deliveries_[index].envelope; }
  const topics::TopicSpec& topic() const { return topic_; }
  Prefetch prefetch() const { return prefetch_; }
  const std::vector<kafka::Delivery>& deliveries() const;
  bool active(std::size_t index) const { return state_[index] == State::active; }
  bool any_active() const;

  // Nothing more to do for this message: its offset may be stored.
  void finish(std::size_t index);
  // Apply it again later (and every later message of its partition with it).
  void retry(std::size_t index);
  // Parked for an operator: its partition moves on.
  void park(std::size_t index) { finish(index); }

  // One outcome per message: active and finished ones are done.
  std::vector<kafka::HandlerOutcome> outcomes() const;

 private:
  enum class State { active, finished, retried };
  const topics::TopicSpec& topic_;
  std::vector<kafka::Delivery> deliveries_;
  std::vector<State> state_;
  Prefetch prefetch_;
};

// Applies one message inside the batch's transaction (under its own savepoint). An error result
// rolls the message back; see the top of this file for what follows. PROCESSING MUST BE
// IDEMPOTENT: the message may have been applied before (see infra/plumbing/kafka/consumer.h).
using ApplyOne = std::function<model::Status(pqxx::work& tx, std::size_t index)>;

// One transaction over the batch's active messages, in order, which starts with the topic's
// prefetch when its handler names one (TopicHandler::prefetch).
// Messages stay active when applied (a role may apply them in several steps); a role finishes
// them itself or leaves them active, which is `done` in the end. Returns the transaction's own
// failure, after which every active message has been set to retry. `include`, when given, limits
// the pass to the active messages it accepts.
model::Status apply_each(WorkerContext& context, Batch& batch, const ApplyOne& apply,
                         const std::function<bool(std::size_t)>& include = {});

// A role that calls an external partner (a chain, a payout partner): `begin` (one transaction
// for the batch) records each message's intent and returns what the call needs, or nothing when
// there is nothing (more) to do; `call` runs outside any transaction, message by message;
// `finish` (one transaction) records each answer. A failed call fails its message in `finish`,
// counted or not as any failure is. The intent is committed before any call, so a crash in
// between is visible and the retry repeats the call with the same intent.
template <class Intent, class Answer>
void apply_around_call(
    WorkerContext& context, Batch& batch,
    const std::function<std::optional<Intent>(pqxx::work&, const topics::Envelope&)>& begin,
    const std::function<model::Result<Answer>(const Intent&)>& call,
    const std::function<model::Status(pqxx::work&, const topics::Envelope&, const Answer&)>&
        finish) {
  // Per message, rewritten by every pass of a transaction; read only for messages still active.
  std::vector<std::optional<Intent>> intents(batch.size());
  const auto begun = apply_each(context, batch, [&](pqxx::work& tx, std::size_t i) {
    intents[i] = begin(tx, batch.message(i));
    return model::ok_status();
  });
  if (!begun.ok()) return;
  std::vector<model::Result<Answer>> answers;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i) && !intents[i]) batch.finish(i);
    answers.push_back(batch.active(i) ? call(*intents[i]) : model::Result<Answer>(Answer{}));
  }
  (void)apply_each(context, batch, [&](pqxx::work& tx, std::size_t i) {
    if (!answers[i].ok()) return model::Status(answers[i].error());
    return finish(tx, batch.message(i), *answers[i]);
  });
}

// What a role does with one batch of one of its topics.
using BatchHandler = std::function<void(WorkerContext&, Batch&)>;

struct TopicHandler {
  const topics::TopicSpec* topic;
  BatchHandler handler;
  Prefetch prefetch = nullptr;  // what its messages read or lock, if anything
};

// The common case: each message applied in one step.
BatchHandler each_message(
    std::function<model::Status(WorkerContext&, pqxx::work&, const topics::Envelope&)> apply);

// How long the broker may hold the role's empty fetches: PAYRAIL_KAFKA_FETCH_WAIT_MS when set,
// else the shortest its topics ask for (topics::TopicSpec::request_waits).
int consumer_fetch_wait_ms(const Config& config, const std::vector<TopicHandler>& topic_handlers);

// How long a loaded consumer of the role waits after a batch's first message for more:
// PAYRAIL_WORKER_BATCH_WAIT_MS, and at most topics::kAnswerBatchWaitMs for a role one of whose
// topics a request waits for (TopicSpec::request_waits).
int consumer_batch_wait_ms(const Config& config, const std::vector<TopicHandler>& topic_handlers);

// Runs until SIGINT/SIGTERM, dispatching each batch's messages to the handler of their type.
// `on_start` runs once before consuming (load data, start threads); `on_stop` runs after
// consuming stopped, while the pool still exists. Every topic must name the same consumer group.
int run_worker(std::string_view process_name, const std::vector<TopicHandler>& topic_handlers,
               const std::function<void(WorkerContext&)>& on_start = {},
               const std::function<void()>& on_stop = {});

// True for failures that are a dependency being unavailable, not the message's own.
bool is_dependency_unavailable(const model::Error& error);

}  // namespace payrail::infra::runtime
