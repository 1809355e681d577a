// fiat_payouts.sent -> completed (hold settled to fiat_payouts_sent, fiat_payout.completed) or
// failed (refunded, fiat_payout.failed) on the partner's result.
#pragma once

#include "infra/crypto/data_key.h"
#include "infra/partners/payout_partner.h"
#include "infra/runtime/worker.h"

namespace payrail::workers::settlement {

// PROCESSING IS IDEMPOTENT: guarded by status and the consumed mark. The partner is asked for
// the result PAYRAIL_FIAT_SETTLEMENT_DELAY_MS after it accepted the payout (database time), and
// again after the same delay while the result is still pending.
infra::kafka::HandlerOutcome settle_fiat_payout(infra::runtime::WorkerContext& context,
                                                const infra::partners::PayoutPartners& partners,
                                                const infra::crypto::DataKey* data_key,
                                                const topics::Envelope& message);

}  // namespace payrail::workers::settlement
