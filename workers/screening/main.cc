// payrail-screening: consumes payouts.requested and fiat_payouts.requested. Stablecoin
// destinations are screened against the OFAC digital-currency addresses, fiat beneficiaries'
// names against the OFAC SDN names (the snapshot shipped in data/sanctions, or
// PAYRAIL_SANCTIONS_DIR), and both against the internal blacklist.
#include "infra/adapters/sanctions/sanctions.h"
#include "infra/plumbing/log/log.h"
#include "infra/programs/runtime/worker.h"
#include "infra/store/fiat_payouts/fiat_payouts.h"
#include "infra/store/payouts/payouts.h"
#include "infra/store/screening/blacklist.h"
#include "workers/screening/sanctions_keeper.h"
#include "workers/screening/screen_batch.h"
#include "workers/screening/screen_fiat_payout.h"
#include "workers/screening/screen_payout.h"

int main() {
  using namespace payrail;
  using infra::runtime::WorkerContext;
  std::unique_ptr<workers::screening::SanctionsKeeper> keeper;
  infra::store::blacklist::Cache blacklist;  // both topics' batches
  return infra::runtime::run_worker(
      "payrail-screening",
      {{&topics::kPayoutsRequested,
        [&](WorkerContext& context, infra::runtime::Batch& batch) {
          workers::screening::screen_batch(context, keeper->watcher(), blacklist, batch,
                                           workers::screening::screen_payout);
        },
        infra::runtime::lock_resources<infra::store::payouts::lock_all>},
       {&topics::kFiatPayoutsRequested,
        [&](WorkerContext& context, infra::runtime::Batch& batch) {
          workers::screening::screen_batch(context, keeper->watcher(), blacklist, batch,
                                           workers::screening::screen_fiat_payout);
        },
        infra::runtime::lock_resources<infra::store::fiat_payouts::lock_all>}},
      [&](WorkerContext& context) {
        // Blacklisted names keyed by an earlier normalization (an upgrade) get today's keys
        // before anything is screened; until then batches compute them (blacklist::Entries).
        if (auto rekeyed = infra::store::blacklist::rekey_names(context.pool); !rekeyed.ok()) {
          infra::log::warn("blacklist.rekey_failed", {{"error", rekeyed.error().message}});
        } else if (rekeyed->rekeyed + rekeyed->merged > 0) {
          infra::log::info("blacklist.rekeyed", {{"rekeyed", std::to_string(rekeyed->rekeyed)},
                                                 {"merged", std::to_string(rekeyed->merged)}});
        }
        const auto directory = context.config.sanctions_dir.value_or(
            infra::sanctions::find_default_sanctions_directory().value_or(""));
        keeper = std::make_unique<workers::screening::SanctionsKeeper>(
            context.pool, directory,
            std::chrono::milliseconds(context.config.sanctions_reload_interval_ms));
        keeper->start();
      },
      [&] { keeper.reset(); });
}
