// fiat_payouts.requested -> pending -> screening -> processing | blocked | pending_approval.
#pragma once

#include "infra/runtime/worker.h"
#include "infra/sanctions/sanctions.h"

namespace payrail::workers::screening {

// PROCESSING IS IDEMPOTENT: guarded by the payout's status and the message's consumed mark; a
// redelivery or a replay changes nothing. Applied inside the batch's transaction.
model::Status screen_fiat_payout(pqxx::work& tx, const infra::sanctions::SanctionsWatcher& watcher,
                                 const topics::Envelope& message);

}  // namespace payrail::workers::screening
