// The fiat payout state machine as data (schemas/model/common/lifecycle.h): one row per allowed
// (from, trigger) pair with its target state and effects, shared by the API and every worker; any
// pair not listed is forbidden. Source: the contract's fiat payout states with the approve,
// reject and cancel operations (docs/fiat-payouts.md). Unlike a stablecoin payout there is no
// `approved` state: a clear screening decision within the auto-approval limit goes straight to
// `processing` (sent to the payout partner). The effects are the payouts' (PayoutEffects): the
// USDC funding is held at creation and then released, refunded or settled exactly once.
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "schemas/model/common/lifecycle.h"
#include "schemas/model/payouts/payout_lifecycle.h"

namespace payrail::model {

enum class FiatPayoutStatus {
  pending,
  screening,
  processing,
  completed,
  failed,
  blocked,
  cancelled,
  pending_approval,
};

enum class FiatPayoutTrigger {
  create,                // request accepted
  start_screening,       // the screening worker picked it up
  screening_clear,       // clear and within the auto-approval limit: sent to the partner
  screening_flagged,     // sanctions or internal blacklist hit
  screening_over_limit,  // clear but above the auto-approval limit
  approve,               // a member approved a held payout
  reject,                // a member rejected a held payout
  cancel,                // the integrator cancelled before processing
  partner_credited,      // the partner credited the beneficiary's account
  partner_failed,        // the partner refused, failed or returned the payout
};

using FiatPayoutTransition = Transition<FiatPayoutStatus, FiatPayoutTrigger, PayoutEffects>;

std::span<const FiatPayoutTransition> fiat_payout_transitions();

// The transition for (from, trigger), or nullopt when the table forbids it.
std::optional<FiatPayoutTransition> find_fiat_payout_transition(
    std::optional<FiatPayoutStatus> from, FiatPayoutTrigger trigger);

// Terminal: no transition leaves the status (completed, failed, blocked, cancelled).
bool is_terminal(FiatPayoutStatus status);

std::string_view fiat_payout_status_name(FiatPayoutStatus status);
std::optional<FiatPayoutStatus> parse_fiat_payout_status(std::string_view text);
std::string_view fiat_payout_trigger_name(FiatPayoutTrigger trigger);

inline constexpr std::size_t kFiatPayoutStatusCount = 8;
inline constexpr std::size_t kFiatPayoutTriggerCount = 10;

}  // namespace payrail::model
