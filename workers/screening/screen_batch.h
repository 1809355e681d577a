// One batch of a screening topic. Nothing is decided without the sanctions lists: until they are
// loaded, payouts move to `screening` (visibly waiting for a decision) and their messages are
// retried, uncounted (a dependency, not the messages, is missing).
#pragma once

#include "infra/log/log.h"
#include "infra/runtime/worker.h"
#include "infra/sanctions/sanctions.h"

namespace payrail::workers::screening {

using ScreenOne = model::Status (*)(pqxx::work&, const infra::sanctions::SanctionsLists*,
                                    const topics::Envelope&);

inline void screen_batch(infra::runtime::WorkerContext& context,
                         const infra::sanctions::SanctionsWatcher& watcher,
                         infra::runtime::Batch& batch, ScreenOne screen) {
  const auto lists = watcher.current();
  (void)infra::runtime::apply_each(context, batch, [&](pqxx::work& tx, std::size_t i) {
    return screen(tx, lists.get(), batch.message(i));
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
