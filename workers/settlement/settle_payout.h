// payouts.broadcast -> completed (hold settled, tx_hash set, payout.completed).
#pragma once

#include "infra/adapters/chain/chain_adapter.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::settlement {

// PROCESSING IS IDEMPOTENT: guarded by status and the consumed mark. Test mode confirms
// PAYRAIL_SETTLEMENT_DELAY_MS after the broadcast (database time).
void settle_payouts(infra::runtime::WorkerContext& context,
                    const infra::chain::ChainAdapters& adapters, infra::runtime::Batch& batch);

}  // namespace payrail::workers::settlement
