// One batch of a screening topic. Nothing is decided without the sanctions lists: until they are
// loaded, payouts move to `screening` (visibly waiting for a decision) and their messages are
// retried, uncounted (a dependency, not the messages, is missing).
#pragma once

#include <memory>

#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/log/log.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/screening/blacklist.h"
#include "workers/screening/screen_resource.h"

namespace payrail::workers::screening {

using ScreenOne = model::Status (*)(pqxx::work&, const ScreeningInputs&, const topics::Envelope&);

// What the batch reads before its transaction, with one autocommit: the effective limits of its
// organizations (one statement) and the internal blacklist (one statement while it is unchanged).
struct BatchReads {
  infra::store::spend::LimitsByScope limits;
  std::shared_ptr<const infra::store::blacklist::Entries> blacklist;
};

// nullopt when the read failed, and every message of the batch is then retried.
inline std::optional<BatchReads> read_for_batch(infra::runtime::WorkerContext& context,
                                                infra::runtime::Batch& batch,
                                                infra::store::blacklist::Cache& blacklist) {
  std::vector<infra::store::spend::Scope> scopes;
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i)) scopes.emplace_back(batch.message(i).org_id, batch.message(i).mode);
  }
  auto read = context.pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<BatchReads> {
    return BatchReads{infra::store::spend::effective_limits(tx, scopes), blacklist.current(tx)};
  });
  if (read.ok()) return std::move(*read);
  infra::log::warn("worker.retry", {{"error", read.error().message}});
  for (std::size_t i = 0; i < batch.size(); ++i) {
    if (batch.active(i)) batch.retry(i);
  }
  return std::nullopt;
}

inline void screen_batch(infra::runtime::WorkerContext& context,
                         const infra::sanctions::SanctionsWatcher& watcher,
                         infra::store::blacklist::Cache& blacklist, infra::runtime::Batch& batch,
                         ScreenOne screen) {
  const auto lists = watcher.current();
  BatchReads reads;
  if (lists) {  // without the lists nothing is decided: no limit or entry is needed
    auto read = read_for_batch(context, batch, blacklist);
    if (!read) return;
    reads = std::move(*read);
  }
  const ScreeningInputs inputs{lists.get(), &reads.limits, reads.blacklist.get()};
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
