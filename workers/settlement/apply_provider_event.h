// collections.provider_events -> the matched collection moves (received, or failed), or the
// notification is recorded as an exception for an operator; never credited to a guess.
#pragma once

#include <pqxx/pqxx>

#include "infra/programs/runtime/worker.h"
#include "infra/store/collections/collections.h"

namespace payrail::workers::settlement {

// Applies, in arrival order, every notification for the (locked) collection's reference that is
// not applied yet, and records each one's outcome; returns the collection as it is afterwards.
// A payment is judged by when it was recorded: one recorded at or after expires_at finds the
// collection expired (expiring it now if the expiry worker has not yet), whatever order the
// workers run in. Lock order: the collection first, then its notifications.
infra::store::collections::CollectionRow apply_pending_notifications(
    pqxx::work& tx, infra::store::collections::CollectionRow collection);

// PROCESSING IS IDEMPOTENT: a notification's outcome is set once, in the transaction that
// applies it (and marks the message consumed); a redelivery or a replay finds it set.
model::Status apply_provider_event(infra::runtime::WorkerContext& context, pqxx::work& tx,
                                   const topics::Envelope& message);

}  // namespace payrail::workers::settlement
