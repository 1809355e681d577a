// fiat_payouts.requested -> pending -> screening -> processing | blocked | pending_approval.
#pragma once

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::screening {

// PROCESSING IS IDEMPOTENT: guarded by the payout's status and the message's consumed mark; a
// redelivery or a replay changes nothing. Applied inside the batch's transaction (screen_batch.h).
// Without the lists the payout only moves to `screening`: the decision waits for them.
struct ScreeningInputs;  // screen_resource.h
model::Status screen_fiat_payout(pqxx::work& tx, const ScreeningInputs& inputs,
                                 const topics::Envelope& message);

}  // namespace payrail::workers::screening
