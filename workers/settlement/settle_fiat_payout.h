// fiat_payouts.sent -> completed (hold settled to fiat_payouts_sent, fiat_payout.completed) or
// failed (refunded, fiat_payout.failed) on the partner's result.
#pragma once

#include "infra/adapters/partners/payout_partner.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::settlement {

// PROCESSING IS IDEMPOTENT: guarded by status and the consumed mark. The partner is asked for
// the result PAYRAIL_FIAT_SETTLEMENT_DELAY_MS after it accepted the payout (database time), and
// again after the same delay while the result is still pending.
void settle_fiat_payouts(infra::runtime::WorkerContext& context,
                         const infra::partners::PayoutPartners& partners,
                         const infra::crypto::DataKey* data_key, infra::runtime::Batch& batch);

}  // namespace payrail::workers::settlement
