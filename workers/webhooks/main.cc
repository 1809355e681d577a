// payrail-webhooks: consumes `events`, fans each event out to the subscribed endpoints of its
// organization and mode, and delivers them, signed, over HTTPS with retries kept in Postgres.
#include <cstdlib>

#include "infra/plumbing/log/log.h"
#include "infra/programs/runtime/worker.h"
#include "workers/webhooks/delivery_loop.h"
#include "workers/webhooks/fan_out.h"

int main() {
  using namespace payrail;
  std::unique_ptr<infra::pg::Pool> delivery_pool;
  std::unique_ptr<workers::webhooks::DeliveryLoop> loop;
  return infra::runtime::run_worker(
      "payrail-webhooks",
      {{&topics::kEvents,
        infra::runtime::each_message(
            [&](infra::runtime::WorkerContext&, pqxx::work& tx, const topics::Envelope& message) {
              return workers::webhooks::fan_out_event(tx, message, [&] { loop->wake(); });
            }),
        workers::webhooks::prefetch_fan_outs}},
      [&](infra::runtime::WorkerContext& context) {
        auto options = workers::webhooks::loop_options_from(context.config);
        if (!options.ok()) {
          infra::log::error("webhooks.start_failed", {{"error", options.error().message}});
          std::exit(1);
        }
        delivery_pool = std::make_unique<infra::pg::Pool>(
            workers::webhooks::delivery_pool_options(context.config.database_url, *options));
        loop =
            std::make_unique<workers::webhooks::DeliveryLoop>(*delivery_pool, std::move(*options));
        loop->start();
      },
      [&] {
        if (loop) loop->stop();
        loop.reset();
        delivery_pool.reset();
      });
}
