// Setup commands: migrations, development sessions, topics on a real Kafka cluster.
#include <cstdio>
#include <ctime>

#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/kafka/admin.h"
#include "infra/plumbing/pg/migrate.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/screening/blacklist.h"
#include "schemas/model/contract/contracts.h"

namespace payrail::infra::cli {
namespace {

int migrate(const Config& config, const Options&) {
  pg::Pool pool(pg::PoolOptions{.url = config.database_url, .max_connections = 1});
  auto connection = pool.open_connection();
  if (!connection.ok()) return fail(connection.error().message);
  auto status = pg::apply_migrations(**connection);
  if (!status.ok()) return fail(status.error().message);
  // Blacklisted names keyed by an earlier name normalization get today's keys: SQL cannot compute
  // them (schemas/model/screening/name_key.h).
  auto rekeyed = store::blacklist::rekey_names(pool);
  if (!rekeyed.ok()) return fail(rekeyed.error().message);
  std::printf("migrations applied\n");
  if (rekeyed->rekeyed + rekeyed->merged > 0) {
    std::printf("blacklist names re-keyed: %ld (%ld duplicates removed)\n", rekeyed->rekeyed,
                rekeyed->merged);
  }
  return 0;
}

int dev_session(const Config& config, const Options& options) {
  const auto email = option(options, "email");
  if (!email) return fail("dev-session needs --email");
  if (!config.idp_hs256_secret) return fail("PAYRAIL_IDP_HS256_SECRET is not set");
  const auto subject = option(options, "subject").value_or("dev|" + *email);
  const long ttl_seconds = std::stol(option(options, "ttl-seconds").value_or("3600"));
  auth::JwtConfig jwt{.issuer = config.idp_issuer,
                      .audience = config.idp_audience,
                      .hs256_secret = config.idp_hs256_secret};
  std::printf(
      "%s\n",
      auth::mint_hs256_session(jwt, subject, *email, std::time(nullptr), ttl_seconds).c_str());
  return 0;
}

int topics_create(const Config& config, const Options& options) {
  const int replication = std::stoi(option(options, "replication-factor").value_or("1"));
  auto status =
      kafka::create_registry_topics(config.kafka_brokers, config.topic_prefix, replication);
  if (!status.ok()) return fail(status.error().message);
  std::printf("topics created\n");
  return 0;
}

// The OpenAPI description exactly as GET /v1/openapi.json serves it (for linters and clients).
int openapi(const Config&, const Options&) {
  const auto document = model::openapi_document();
  std::fwrite(document.data(), 1, document.size(), stdout);
  std::printf("\n");
  return 0;
}

}  // namespace

void add_setup_commands(CommandTable& table) {
  table["migrate"] = {"migrate", "apply database migrations", migrate};
  table["dev-session"] = {"dev-session --email a@example.com [--subject s] [--ttl-seconds 3600]",
                          "mint a development identity-provider session (HS256)", dev_session};
  table["openapi"] = {"openapi", "print the OpenAPI description the API serves", openapi};
  table["topics-create"] = {"topics-create [--replication-factor 1]",
                            "create the registry's topics on real Kafka", topics_create};
}

}  // namespace payrail::infra::cli
