// The screening both kinds of payout share (screen_payout.cc, screen_fiat_payout.cc):
// pending -> screening, then, once the sanctions lists are loaded, the decision: blocked (the
// transition releases the hold), pending_approval (over the auto-approval limit) or approved
// (sent on to execution). `Kind` names the repository, the lifecycle's enums and what is screened.
#pragma once

#include <optional>
#include <string>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/money/spend.h"
#include "infra/store/outbox/outbox.h"
#include "infra/store/screening/blacklist.h"
#include "infra/store/screening/screening_workers.h"
#include "topics/envelope.h"
#include "schemas/model/common/invariant.h"
#include "workers/screening/decision.h"

namespace payrail::workers::screening {

// What a batch is screened with: the sanctions lists (nullptr until they are loaded), and the
// effective limits of its organizations and the internal blacklist, read for the whole batch
// before its transaction (screen_batch.h). A limit or an entry changed meanwhile applies from the
// next batch, as it would had it been changed a moment later.
struct ScreeningInputs {
  const infra::sanctions::SanctionsLists* lists = nullptr;
  const infra::store::spend::LimitsByScope* limits = nullptr;
  const infra::store::blacklist::Entries* blacklist = nullptr;  // nullptr: ask per payout
};

// Whether the internal blacklist has this entry: from the batch's read, or asked now when the
// batch has none (a blacklist too large to keep).
inline bool blacklisted(pqxx::work& tx, const ScreeningInputs& inputs, const std::string& kind,
                        const std::string& normalized) {
  if (inputs.blacklist != nullptr) return inputs.blacklist->contains(kind, normalized);
  return infra::store::blacklist::contains(tx, kind, normalized);
}

// The payout's limits from the batch's read; read here when the batch did not (its message named
// another scope than its payout, which a message written by Payrail never does).
inline model::PayoutLimits limits_for(pqxx::work& tx, const ScreeningInputs& inputs,
                                      const std::string& org_id, model::Mode mode) {
  if (inputs.limits != nullptr) {
    const auto found = inputs.limits->find({org_id, mode});
    if (found != inputs.limits->end()) return found->second;
  }
  return infra::store::spend::effective_limits(tx, org_id, mode);
}

// The payout to screen, locked (pending, or screening when an earlier attempt waited for the
// lists), or nothing when there is nothing (more) to do. The status decides: a message applied
// before finds the payout decided (or cancelled), and its consumed mark is only written, never
// read (a read per message would cost a statement).
template <class Kind>
std::optional<typename Kind::Row> to_screen(pqxx::work& tx, const topics::Envelope& message) {
  auto payout = Kind::lock(tx, message.resource_id);
  if (!payout ||
      (payout->status != Kind::Status::pending && payout->status != Kind::Status::screening)) {
    infra::store::outbox::mark_consumed(tx, message.message_id);  // cancelled meanwhile, or done
    return std::nullopt;
  }
  return payout;
}

// Records the decision and wakes the API request waiting for it. A pending payout goes through
// `screening` to the decision with one write: both transitions are logged, as two writes would.
template <class Kind>
void record_decision(pqxx::work& tx, const topics::Envelope& message,
                     const typename Kind::Row& payout, const ScreeningInputs& inputs) {
  const auto& resource = payout.resource;
  const auto result = Kind::decide(tx, payout, inputs);
  const auto limits = limits_for(tx, inputs, payout.org_id, resource.mode);
  const auto trigger = result.blocked ? Kind::Trigger::screening_flagged
                       : infra::store::spend::within_auto_approval(payout.amount_usd, limits)
                           ? Kind::Trigger::screening_clear
                           : Kind::Trigger::screening_over_limit;
  const auto decided =
      payout.status == Kind::Status::pending
          ? Kind::transition(tx, payout, {Kind::Trigger::start_screening, trigger},
                             {.screening = result})
          : Kind::transition(tx, payout, {trigger}, {.screening = result});
  model::invariant(decided.has_value(), "a pending or screening payout takes its decision");
  count_after_commit(Kind::kResource, result);
  if (trigger == Kind::Trigger::screening_clear) {
    infra::store::outbox::enqueue(tx, Kind::approved_topic(), payout.org_id, resource.mode,
                                  resource.id);
  }
  // The API's waiters listen on one channel for both kinds (api/payout_decisions.h), by id.
  infra::store::screening_workers::notify_decision(tx, resource.id);
  infra::store::outbox::mark_consumed(tx, message.message_id);
  infra::log::info("screening.decided", {{Kind::kIdField, resource.id},
                                         {"trigger", std::string(Kind::trigger_name(trigger))},
                                         {"list_version", result.list_version}});
}

// PROCESSING IS IDEMPOTENT: guarded by the payout's status, read under its row lock.
// Without `lists` the payout only moves to `screening` (visibly waiting): the decision waits for
// them.
template <class Kind>
model::Status screen_resource(pqxx::work& tx, const ScreeningInputs& inputs,
                              const topics::Envelope& message) {
  const auto payout = to_screen<Kind>(tx, message);
  if (!payout) return model::ok_status();
  if (inputs.lists != nullptr) {
    record_decision<Kind>(tx, message, *payout, inputs);
  } else if (payout->status == Kind::Status::pending) {
    const auto waiting = Kind::transition(tx, *payout, {Kind::Trigger::start_screening}, {});
    model::invariant(waiting.has_value(), "a pending payout can start screening");
  }
  return model::ok_status();
}

}  // namespace payrail::workers::screening
