// payouts.approved -> processing -> (broadcast) -> payouts.broadcast, or failed with a refund.
#pragma once

#include "infra/chain/chain_adapter.h"
#include "infra/runtime/worker.h"

namespace payrail::workers::execution {

// PROCESSING IS IDEMPOTENT: guarded by status, the consumed mark, and the broadcast record (the
// adapter is called again only while no outcome is recorded, with the same reference).
infra::kafka::HandlerOutcome execute_payout(infra::runtime::WorkerContext& context,
                                            const infra::chain::ChainAdapters& adapters,
                                            const topics::Envelope& message);

}  // namespace payrail::workers::execution
