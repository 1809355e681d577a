// fiat_payouts.approved -> (send to the payout partner) -> fiat_payouts.sent, or failed with a
// refund when the partner refuses the payout.
#pragma once

#include "infra/adapters/partners/payout_partner.h"
#include "infra/plumbing/crypto/data_key.h"
#include "infra/programs/runtime/worker.h"

namespace payrail::workers::execution {

// PROCESSING IS IDEMPOTENT: guarded by status, the consumed mark and the recorded send (the
// partner is called only while no answer is recorded, always with the payout's id as reference,
// and the partner is idempotent by it). `data_key` opens the sealed account for the partner;
// neither the account nor the beneficiary's name is ever logged.
// The batch's payouts are locked and checked in one transaction before any partner call.
void execute_fiat_payouts(infra::runtime::WorkerContext& context,
                          const infra::partners::PayoutPartners& partners,
                          const infra::crypto::DataKey* data_key, infra::runtime::Batch& batch);

}  // namespace payrail::workers::execution
