// One batch of a screening topic. Nothing is decided without the sanctions lists: until they are
// loaded, payouts move to `screening` (visibly waiting for a decision) and their messages are
// retried, uncounted (a dependency, not the messages, is missing).
#pragma once

#include "infra/log/log.h"
#include "infra/runtime/worker.h"
#include "infra/sanctions/sanctions.h"
#include "workers/screening/screen_resource.h"

namespace payrail::workers::screening {

using ScreenOne = model::Status (*)(pqxx::work&, const ScreeningInputs&, const topics::Envelope&);

// The effective limits of the batch's organizations, with one statement and no transaction (a
// read); nullopt when it failed, and every message of the batch is then retried.
inline std::optional<infra::repositories::spend::LimitsByScope> limits_of(
    infra::runtime::WorkerContext& context, infra::runtime::Batch& batch) {
  std::vector<infra::repositories::spend::Scope> scopes;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i)) scopes.emplace_back(batch.message(i).org_id, batch.message(i).mode);
  }
  auto limits = context.pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<infra::repositories::spend::LimitsByScope> {
        return infra::repositories::spend::effective_limits(tx, scopes);
      });
  if (limits.ok()) return std::move(*limits);
  infra::log::warn("worker.retry", {{"error", limits.error().message}});
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i)) batch.retry(i);
  }
  return std::nullopt;
}

inline void screen_batch(infra::runtime::WorkerContext& context,
                         const infra::sanctions::SanctionsWatcher& watcher,
                         infra::runtime::Batch& batch, ScreenOne screen) {
  const auto lists = watcher.current();
  infra::repositories::spend::LimitsByScope limits;
  if (lists) {  // without the lists nothing is decided, and no limit is needed
    auto read = limits_of(context, batch);
    if (!read) return;
    limits = std::move(*read);
  }
  const ScreeningInputs inputs{lists.get(), &limits};
  (void)infra::runtime::apply_each(context, batch, [&](pqxx::work& tx, std::size_t i) {
    return screen(tx, inputs, batch.message(i));
  });
  if (lists) return;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (!batch.active(i)) continue;
    infra::log::warn("worker.retry", {{"message_id", batch.message(i).message_id},
                                      {"error", "sanctions lists not loaded"}});
    batch.retry(i);
  }
}

}  // namespace payrail::workers::screening
