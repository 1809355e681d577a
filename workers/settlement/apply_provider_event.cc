#include "workers/settlement/apply_provider_event.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/outbox/outbox.h"

namespace payrail::workers::settlement {
namespace {

namespace collections = infra::store::collections;
namespace provider_events = infra::store::collection_provider_events;
using model::ProviderEventType;
using provider_events::Outcome;
using S = model::CollectionStatus;

void record_unmatched(pqxx::work& tx, const provider_events::ProviderEventRow& event) {
  provider_events::set_outcome(tx, event.id, Outcome::unmatched_reference, std::nullopt,
                               std::nullopt);
  // The reference is what a payer wrote: it stays in the database for the operator, not the log.
  infra::log::warn(
      "collections.unmatched_payment",
      {{"provider_event", event.id}, {"mode", std::string(model::mode_name(event.event.mode))}});
}

// A payment recorded at or after the deadline of a collection the expiry worker has not reached
// yet: the collection had stopped accepting payments, so it expires now (with its event, as the
// worker would have expired it) and the payment is judged against that.
collections::CollectionRow expire_at_deadline(pqxx::work& tx,
                                              const collections::CollectionRow& current) {
  if (current.status != S::awaiting_payment) return current;
  const auto expired = collections::transition(tx, current, model::CollectionTrigger::expire);
  return expired ? *expired : current;
}

// One notification against its collection: the transition the table allows, or the exception
// that explains why nothing moved.
collections::CollectionRow apply_one(pqxx::work& tx, collections::CollectionRow current,
                                     const provider_events::PendingNotification& pending) {
  const auto& event = pending.row;
  const auto& notified = event.event;
  std::optional<collections::CollectionRow> after;
  Outcome outcome = Outcome::applied;
  if (notified.type == ProviderEventType::payment_received) {
    if (pending.after_deadline) current = expire_at_deadline(tx, current);
    after = collections::transition(tx, current, model::CollectionTrigger::payment_received,
                                    {.received_amount = notified.amount});
    const bool closed = current.status == S::expired || current.status == S::cancelled;
    if (!after) outcome = closed ? Outcome::late_payment : Outcome::duplicate_payment;
  } else {
    after = collections::transition(
        tx, current, model::CollectionTrigger::payment_failed,
        {.failure_reason = std::string(model::provider_event_type_name(notified.type))});
    if (!after) outcome = Outcome::failure_not_applicable;
  }
  provider_events::set_outcome(tx, event.id, outcome, current.resource.id, current.org_id);
  if (outcome != Outcome::applied) {
    infra::log::warn("collections.payment_not_applied",
                     {{"provider_event", event.id},
                      {"collection_id", current.resource.id},
                      {"outcome", std::string(provider_events::outcome_name(outcome))}});
  }
  return after ? *after : current;
}

model::Status apply(pqxx::work& tx, const topics::Envelope& message) {
  if (infra::store::outbox::is_consumed(tx, message.message_id)) return model::ok_status();
  const auto event = provider_events::find(tx, message.resource_id);
  if (event && !event->outcome) {
    const auto collection =
        collections::lock_by_reference(tx, event->event.mode, event->reference_normalized,
                                       event->event.currency, event->event.org_id);
    if (collection) {
      apply_pending_notifications(tx, *collection);
    } else if (const auto locked = provider_events::lock(tx, event->id);
               locked && !locked->outcome) {
      record_unmatched(tx, *locked);
    }
  }
  infra::store::outbox::mark_consumed(tx, message.message_id);
  return model::ok_status();
}

}  // namespace

collections::CollectionRow apply_pending_notifications(pqxx::work& tx,
                                                       collections::CollectionRow collection) {
  for (const auto& pending : provider_events::lock_pending(tx, collection)) {
    if (pending.row.event.currency != collection.resource.currency) {
      record_unmatched(tx, pending.row);
      continue;
    }
    collection = apply_one(tx, collection, pending);
  }
  return collection;
}

model::Status apply_provider_event(infra::runtime::WorkerContext&, pqxx::work& tx,
                                   const topics::Envelope& message) {
  return apply(tx, message);
}

}  // namespace payrail::workers::settlement
