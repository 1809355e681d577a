// fiat_payouts.requested -> pending -> screening -> processing | blocked | pending_approval.
#pragma once

#include "infra/runtime/worker.h"
#include "infra/sanctions/sanctions.h"

namespace payrail::workers::screening {

// PROCESSING IS IDEMPOTENT: both steps are guarded by the fiat payout's status and the message's
// consumed mark; a redelivery or a replay changes nothing. The beneficiary's name is screened
// and never logged.
infra::kafka::HandlerOutcome screen_fiat_payout(infra::runtime::WorkerContext& context,
                                                const infra::sanctions::SanctionsWatcher& watcher,
                                                const topics::Envelope& message);

}  // namespace payrail::workers::screening
