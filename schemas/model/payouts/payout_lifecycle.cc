#include "schemas/model/payouts/payout_lifecycle.h"

#include <array>

namespace payrail::model {
namespace {

using S = PayoutStatus;
using T = PayoutTrigger;
using M = MoneyEffect;

// clang-format off
constexpr std::array kTransitions{
    //               from                trigger                  to                   money       event                      spend back
    PayoutTransition{std::nullopt,       T::create,               S::pending,          {M::hold,    "payout.created",          false}},
    PayoutTransition{S::pending,         T::start_screening,      S::screening,        {M::none,    std::nullopt,              false}},
    PayoutTransition{S::screening,       T::screening_clear,      S::approved,         {M::none,    std::nullopt,              false}},
    PayoutTransition{S::screening,       T::screening_flagged,    S::blocked,          {M::release, "payout.blocked",          true}},
    PayoutTransition{S::screening,       T::screening_over_limit, S::pending_approval, {M::none,    "payout.pending_approval", false}},
    PayoutTransition{S::approved,        T::execute,              S::processing,       {M::none,    "payout.processing",       false}},
    PayoutTransition{S::pending_approval, T::approve,             S::processing,       {M::none,    "payout.processing",       false}},
    PayoutTransition{S::pending_approval, T::reject,              S::cancelled,        {M::release, "payout.cancelled",        true}},
    PayoutTransition{S::processing,      T::confirm,              S::completed,        {M::settle,  "payout.completed",        false}},
    PayoutTransition{S::processing,      T::broadcast_failed,     S::failed,           {M::refund,  "payout.failed",           true}},
    PayoutTransition{S::pending,         T::cancel,               S::cancelled,        {M::release, "payout.cancelled",        true}},
    PayoutTransition{S::screening,       T::cancel,               S::cancelled,        {M::release, "payout.cancelled",        true}},
    PayoutTransition{S::pending_approval, T::cancel,              S::cancelled,        {M::release, "payout.cancelled",        true}},
    PayoutTransition{S::approved,        T::cancel,               S::cancelled,        {M::release, "payout.cancelled",        true}},
};
// clang-format on

constexpr EnumNames<PayoutStatus, 9> kStatusNames{{"pending", "screening", "approved", "processing",
                                                   "completed", "failed", "blocked", "cancelled",
                                                   "pending_approval"}};

constexpr EnumNames<PayoutTrigger, 11> kTriggerNames{
    {"create", "start_screening", "screening_clear", "screening_flagged", "screening_over_limit",
     "execute", "approve", "reject", "cancel", "confirm", "broadcast_failed"}};

}  // namespace

std::span<const PayoutTransition> payout_transitions() {
  return kTransitions;
}

std::optional<PayoutTransition> find_payout_transition(std::optional<PayoutStatus> from,
                                                       PayoutTrigger trigger) {
  return find_transition(payout_transitions(), from, trigger);
}

bool is_terminal(PayoutStatus status) {
  return is_terminal_in(payout_transitions(), status);
}

bool is_cancelable(PayoutStatus status) {
  return find_payout_transition(status, T::cancel).has_value();
}

std::string_view payout_status_name(PayoutStatus status) {
  return kStatusNames.name(status);
}

std::optional<PayoutStatus> parse_payout_status(std::string_view text) {
  return kStatusNames.parse(text);
}

std::string_view payout_trigger_name(PayoutTrigger trigger) {
  return kTriggerNames.name(trigger);
}

}  // namespace payrail::model
