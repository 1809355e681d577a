// payouts.approved -> processing -> (broadcast) -> payouts.broadcast, or failed with a refund.
#pragma once

#include "infra/adapters/chain/chain_adapter.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::execution {

// PROCESSING IS IDEMPOTENT: guarded by status, the consumed mark, and the broadcast record (the
// adapter is called again only while no outcome is recorded, with the same reference).
// The intents of the batch are committed before any adapter call.
void execute_payouts(infra::runtime::WorkerContext& context,
                     const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch);

// The prefetch of payouts.approved (each pass of a batch's transaction starts with it): the
// payouts' rows with their broadcasts, then the hot wallets' next nonces the batch may take, in
// one fixed order (network, sender) so that batches of several networks never deadlock.
void lock_batch(pqxx::work& tx, const std::vector<const topics::Envelope*>& messages);

}  // namespace payrail::workers::execution
