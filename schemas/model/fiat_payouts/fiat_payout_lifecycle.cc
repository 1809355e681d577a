#include "schemas/model/fiat_payouts/fiat_payout_lifecycle.h"

#include <array>

namespace payrail::model {
namespace {

using S = FiatPayoutStatus;
using T = FiatPayoutTrigger;
using M = MoneyEffect;

// clang-format off
constexpr std::array kTransitions{
    //                   from                 trigger                  to                   money       event                           spend back
    FiatPayoutTransition{std::nullopt,        T::create,               S::pending,          {M::hold,    std::nullopt,                   false}},
    FiatPayoutTransition{S::pending,          T::start_screening,      S::screening,        {M::none,    std::nullopt,                   false}},
    FiatPayoutTransition{S::screening,        T::screening_clear,      S::processing,       {M::none,    "fiat_payout.processing",       false}},
    FiatPayoutTransition{S::screening,        T::screening_flagged,    S::blocked,          {M::release, "fiat_payout.blocked",          true}},
    FiatPayoutTransition{S::screening,        T::screening_over_limit, S::pending_approval, {M::none,    "fiat_payout.pending_approval", false}},
    FiatPayoutTransition{S::pending_approval, T::approve,              S::processing,       {M::none,    "fiat_payout.processing",       false}},
    FiatPayoutTransition{S::pending_approval, T::reject,               S::cancelled,        {M::release, "fiat_payout.cancelled",        true}},
    FiatPayoutTransition{S::processing,       T::partner_credited,     S::completed,        {M::settle,  "fiat_payout.completed",        false}},
    FiatPayoutTransition{S::processing,       T::partner_failed,       S::failed,           {M::refund,  "fiat_payout.failed",           true}},
    FiatPayoutTransition{S::pending,          T::cancel,               S::cancelled,        {M::release, "fiat_payout.cancelled",        true}},
    FiatPayoutTransition{S::screening,        T::cancel,               S::cancelled,        {M::release, "fiat_payout.cancelled",        true}},
    FiatPayoutTransition{S::pending_approval, T::cancel,               S::cancelled,        {M::release, "fiat_payout.cancelled",        true}},
};
// clang-format on

constexpr EnumNames<FiatPayoutStatus, kFiatPayoutStatusCount> kStatusNames{
    {"pending", "screening", "processing", "completed", "failed", "blocked", "cancelled",
     "pending_approval"}};

constexpr EnumNames<FiatPayoutTrigger, kFiatPayoutTriggerCount> kTriggerNames{
    {"create", "start_screening", "screening_clear", "screening_flagged", "screening_over_limit",
     "approve", "reject", "cancel", "partner_credited", "partner_failed"}};

}  // namespace

std::span<const FiatPayoutTransition> fiat_payout_transitions() {
  return kTransitions;
}

std::optional<FiatPayoutTransition> find_fiat_payout_transition(
    std::optional<FiatPayoutStatus> from, FiatPayoutTrigger trigger) {
  return find_transition(fiat_payout_transitions(), from, trigger);
}

bool is_terminal(FiatPayoutStatus status) {
  return is_terminal_in(fiat_payout_transitions(), status);
}

std::string_view fiat_payout_status_name(FiatPayoutStatus status) {
  return kStatusNames.name(status);
}

std::optional<FiatPayoutStatus> parse_fiat_payout_status(std::string_view text) {
  return kStatusNames.parse(text);
}

std::string_view fiat_payout_trigger_name(FiatPayoutTrigger trigger) {
  return kTriggerNames.name(trigger);
}

}  // namespace payrail::model
