// The payout state machine as data: one row per allowed (from, trigger) pair with its target
// state and effects. The API and every worker apply transitions only through this table; any
// pair not listed is forbidden. Source: the contract's payout states with the approval and reject
// operations (docs/api.md "Payouts").
#pragma once

#include <optional>
#include <span>
#include <string_view>

#include "schemas/model/common/lifecycle.h"

namespace payrail::model {

enum class PayoutStatus {
  pending,
  screening,
  approved,
  processing,
  completed,
  failed,
  blocked,
  cancelled,
  pending_approval,
};

enum class PayoutTrigger {
  create,                // request accepted
  start_screening,       // the screening worker picked it up
  screening_clear,       // clear and within the auto-approval limit
  screening_flagged,     // sanctions or internal blacklist hit
  screening_over_limit,  // clear but above the auto-approval limit
  execute,               // the execution worker begins signing and broadcast
  approve,               // a member approved a held payout
  reject,                // a member rejected a held payout
  cancel,                // the integrator cancelled before processing
  confirm,               // settled on-chain
  broadcast_failed,      // the broadcast failed
};

// Balance effect of a transition (see the ledger): every accepted payout is held once and then
// released, refunded or settled exactly once.
enum class MoneyEffect { none, hold, release, refund, settle };

// What a transition does besides the status. Fiat payouts use the same effects.
struct PayoutEffects {
  MoneyEffect money = MoneyEffect::none;
  std::optional<std::string_view> event;  // webhook event type, if any
  bool returns_spend = false;             // gives the amount back to the daily/monthly limits

  bool operator==(const PayoutEffects&) const = default;
};

using PayoutTransition = Transition<PayoutStatus, PayoutTrigger, PayoutEffects>;

std::span<const PayoutTransition> payout_transitions();

// The transition for (from, trigger), or nullopt when the table forbids it.
std::optional<PayoutTransition> find_payout_transition(std::optional<PayoutStatus> from,
                                                       PayoutTrigger trigger);

// Terminal: no transition leaves the status (completed, failed, blocked, cancelled).
bool is_terminal(PayoutStatus status);
bool is_cancelable(PayoutStatus status);

std::string_view payout_status_name(PayoutStatus status);
std::optional<PayoutStatus> parse_payout_status(std::string_view text);
std::string_view payout_trigger_name(PayoutTrigger trigger);

}  // namespace payrail::model
