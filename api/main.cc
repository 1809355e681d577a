// payrail-api: the REST API. Reactor threads parse HTTP; a bounded worker pool runs handlers.
#include <cstdio>
#include <cstdlib>

#include "api/console/oidc.h"
#include "api/console/routes.h"
#include "api/handlers/handlers.h"
#include "api/handlers/idempotent_create.h"
#include "api/health_probe.h"
#include "api/http/server.h"
#include "api/middleware/authentication.h"
#include "api/middleware/rate_limiter.h"
#include "api/payout_decisions.h"
#include "api/pipeline.h"
#include "api/services.h"
#include "infra/adapters/catalog/countries.h"
#include "infra/adapters/chain/evm_networks.h"
#include "infra/adapters/collections/provider.h"
#include "infra/adapters/rates/rate_source.h"
#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/kafka/producer.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/creates/grouped_writes.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/programs/runtime/process.h"
#include "infra/store/organizations/rate_limits.h"
#include "infra/store/outbox/relay.h"

namespace {

[[noreturn]] void exit_with(const std::string& message) {
  payrail::infra::log::error("api.start_failed", {{"error", message}});
  std::exit(1);
}

}  // namespace

int main() {
  using namespace payrail;
  const auto config = infra::runtime::start_process("payrail-api");
  infra::pg::Pool pool({.url = config.database_url,
                        .max_connections = static_cast<std::size_t>(config.db_pool_size),
                        .acquire_timeout = std::chrono::milliseconds(config.db_acquire_timeout_ms),
                        .application_name = "payrail-api"});
  auto producer =
      infra::kafka::Producer::create({.brokers = config.kafka_brokers, .client_id = "payrail-api"});
  if (!producer.ok()) exit_with(producer.error().message);
  infra::store::outbox::Relay relay(
      pool, **producer,
      {.topic_prefix = config.topic_prefix,
       .poll_interval = std::chrono::milliseconds(config.outbox_poll_interval_ms),
       .redrive_after = std::chrono::milliseconds(config.outbox_redrive_after_ms)});
  auto sessions = infra::auth::JwtVerifier::create({.issuer = config.idp_issuer,
                                                    .audience = config.idp_audience,
                                                    .hs256_secret = config.idp_hs256_secret,
                                                    .jwks_file_path = config.idp_jwks_file});
  if (!sessions.ok()) exit_with(sessions.error().message);
  auto console_sign_in = api::console::OidcClient::create(config);
  if (!console_sign_in.ok()) exit_with(console_sign_in.error().message);
  auto countries = infra::catalog::Countries::load();
  if (!countries.ok()) exit_with(countries.error().message);

  api::ApiKeyAuthenticator api_keys(pool, std::chrono::seconds(1),
                                    static_cast<std::size_t>(config.api_worker_threads));
  api::RateLimiter rate_limiter(
      {.per_second = config.rate_limit_per_second,
       .burst = config.rate_limit_burst,
       .lease_tokens = config.rate_limit_lease_tokens.value_or(
           api::default_lease_tokens(config.rate_limit_per_second, config.rate_limit_burst))},
      [&pool, &config](const std::string& key, int wanted) {
        return infra::store::rate_limits::lease(pool, key, wanted, config.rate_limit_per_second,
                                                config.rate_limit_burst);
      });
  api::HealthProbe health(pool, **producer);
  api::PayoutDecisions payout_decisions(pool);
  const infra::rates::RateSources rates(config.rate_source);
  const infra::collections::CollectionProviders collection_providers(config.collection_provider);
  std::optional<infra::chain::EvmNetworks> evm_networks;
  if (config.chain_adapter == "evm") {
    auto loaded = infra::chain::load_evm_networks(config.evm_networks_file);
    if (!loaded.ok()) exit_with(loaded.error().message);
    evm_networks = std::move(*loaded);
  }
  const auto router = api::build_router();
  const auto console_router = api::console::build_console_router();
  api::WorkerPool workers(static_cast<std::size_t>(config.api_worker_threads),
                          static_cast<std::size_t>(config.api_queue_max));
  infra::store::GroupedWrites creates(
      pool, {.max_requests = static_cast<std::size_t>(config.create_group_max),
             .max_groups = static_cast<std::size_t>(config.create_groups),
             .stalled_after = std::chrono::milliseconds(config.create_group_stall_ms)});
  infra::store::creates::Answers answers(pool, static_cast<std::size_t>(config.create_group_max));
  api::Services services{.config = config,
                         .db = &pool,
                         .sessions = &*sessions,
                         .api_keys = &api_keys,
                         .rate_limiter = &rate_limiter,
                         .health = &health,
                         .relay = &relay,
                         .countries = countries->get(),
                         .payout_decisions = &payout_decisions,
                         .router = &router,
                         .workers = &workers,
                         .rates = &rates,
                         .collection_providers = &collection_providers,
                         .evm_networks = evm_networks ? &*evm_networks : nullptr,
                         .creates = &creates,
                         .answers = &answers,
                         .console_router = &console_router,
                         .console_sign_in = *console_sign_in ? &**console_sign_in : nullptr};

  relay.start();
  payout_decisions.start();
  api::HttpServer server({.address = config.http_address,
                          .port = static_cast<std::uint16_t>(config.http_port),
                          .reuse_port = config.http_reuse_port,
                          .reactor_threads = config.http_reactor_threads,
                          .idle_timeout = std::chrono::milliseconds(config.http_idle_timeout_ms)},
                         workers, [&services](api::HttpRequest request, api::Responder responder) {
                           api::handle_request(services, std::move(request), std::move(responder));
                         });
  try {
    server.start();
  } catch (const std::exception& failure) {
    exit_with(std::string("cannot listen: ") + failure.what());
  }
  infra::log::info("api.listening",
                   {{"address", config.http_address}, {"port", std::to_string(server.port())}});
  std::printf("payrail-api listening on http://%s:%u\n", config.http_address.c_str(),
              server.port());
  std::fflush(stdout);

  infra::runtime::wait_for_stop_signal();
  server.shutdown();
  workers.stop();
  payout_decisions.stop();
  relay.stop();
  return 0;
}
