#include "infra/cli/commands.h"

#include <cstdio>
#include <ctime>
#include <functional>
#include <map>
#include <optional>

#include "infra/auth/jwt.h"
#include "infra/config/config.h"
#include "infra/kafka/admin.h"
#include "infra/pg/migrate.h"
#include "infra/pg/pool.h"
#include "topics/registry.h"

namespace payrail::infra::cli {
namespace {

// `--name value` pairs after the command words.
using Options = std::map<std::string, std::string>;

struct Command {
  std::string usage;
  std::string summary;
  std::function<int(const Config&, const Options&)> run;
};

int fail(const std::string& message) {
  std::fprintf(stderr, "payrail: %s\n", message.c_str());
  return 1;
}

std::optional<std::string> option(const Options& options, const std::string& name) {
  const auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

int migrate(const Config& config, const Options&) {
  pg::Pool pool(pg::PoolOptions{.url = config.database_url, .max_connections = 1});
  auto connection = pool.open_connection();
  if (!connection.ok()) return fail(connection.error().message);
  auto status = pg::apply_migrations(**connection);
  if (!status.ok()) return fail(status.error().message);
  std::printf("migrations applied\n");
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
  std::printf("%s\n",
              auth::mint_hs256_session(jwt, subject, *email, std::time(nullptr), ttl_seconds).c_str());
  return 0;
}

int topics_create(const Config& config, const Options& options) {
  const int replication = std::stoi(option(options, "replication-factor").value_or("1"));
  auto status = kafka::create_registry_topics(config.kafka_brokers, config.topic_prefix, replication);
  if (!status.ok()) return fail(status.error().message);
  std::printf("topics created\n");
  return 0;
}

int offsets_reset(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("offsets-reset needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  auto status = kafka::reset_offsets_to_earliest(
      config.kafka_brokers, group, topics::broker_topic_name(*topic, config.topic_prefix));
  if (!status.ok()) return fail(status.error().message);
  std::printf("group %s rewound to the start of %s\n", group.c_str(), topic_name->c_str());
  return 0;
}

const std::map<std::string, Command>& commands() {
  static const std::map<std::string, Command> table{
      {"migrate", {"migrate", "apply database migrations", migrate}},
      {"dev-session",
       {"dev-session --email a@example.com [--subject s] [--ttl-seconds 3600]",
        "mint a development identity-provider session (HS256)", dev_session}},
      {"topics-create",
       {"topics-create [--replication-factor 1]", "create the registry's topics on real Kafka",
        topics_create}},
      {"offsets-reset",
       {"offsets-reset --topic payouts.requested [--group payrail-screening]",
        "replay a topic: rewind a stopped consumer group to offset 0", offsets_reset}},
  };
  return table;
}

int usage() {
  std::printf("usage: payrail <command> [--option value ...]\n\ncommands:\n");
  for (const auto& [name, command] : commands()) {
    std::printf("  %-70s %s\n", command.usage.c_str(), command.summary.c_str());
  }
  return 2;
}

}  // namespace

int run(const std::vector<std::string>& arguments) {
  if (arguments.empty() || arguments[0] == "help" || arguments[0] == "--help") return usage();
  const auto command = commands().find(arguments[0]);
  if (command == commands().end()) return usage();
  Options options;
  for (std::size_t i = 1; i < arguments.size(); i += 2) {
    if (arguments[i].rfind("--", 0) != 0 || i + 1 >= arguments.size()) return usage();
    options[arguments[i].substr(2)] = arguments[i + 1];
  }
  auto config = load_config_from_environment();
  if (!config.ok()) return fail(config.error().message);
  try {
    return command->second.run(*config, options);
  } catch (const std::exception& failure) {
    return fail(failure.what());
  }
}

}  // namespace payrail::infra::cli
