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
#include "infra/repositories/blacklist.h"
#include "infra/repositories/organizations.h"
#include "infra/repositories/spend.h"
#include "schemas/model/destination.h"
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

pg::Pool open_pool(const Config& config) {
  return pg::Pool(pg::PoolOptions{.url = config.database_url, .max_connections = 1});
}

int report(const model::Status& status, const std::string& done) {
  if (!status.ok()) return fail(status.error().message);
  std::printf("%s\n", done.c_str());
  return 0;
}

// org-status --org org_... --status active|suspended|closed
int org_status(const Config& config, const Options& options) {
  const auto org = option(options, "org");
  const auto status = option(options, "status");
  if (!org || !status || (*status != "active" && *status != "suspended" && *status != "closed")) {
    return fail("org-status needs --org and --status active|suspended|closed");
  }
  auto pool = open_pool(config);
  return report(repositories::organizations::set_status(pool, *org, *status),
                *org + " is " + *status);
}

// kyb-status --org org_... --status unverified|pending|verified|rejected (operator review)
int kyb_status(const Config& config, const Options& options) {
  const auto org = option(options, "org");
  const auto status = option(options, "status");
  const bool valid = status && (*status == "unverified" || *status == "pending" ||
                                *status == "verified" || *status == "rejected");
  if (!org || !valid) {
    return fail("kyb-status needs --org and --status unverified|pending|verified|rejected");
  }
  auto pool = open_pool(config);
  return report(repositories::organizations::set_kyb_status(pool, *org, *status),
                *org + " KYB is " + *status);
}

// The blacklist compares addresses the way screening does: EVM addresses in lower case.
std::string normalized_address(const std::string& address) {
  const bool evm = address.size() == 42 && address.rfind("0x", 0) == 0;
  return evm ? model::normalize_address_for_screening(model::Network::ethereum, address) : address;
}

int blacklist_add(const Config& config, const Options& options) {
  const auto address = option(options, "address");
  if (!address) return fail("blacklist-add needs --address");
  auto pool = open_pool(config);
  return report(
      repositories::blacklist::add(pool, "address", *address, normalized_address(*address),
                                   option(options, "reason").value_or("")),
      "blacklisted " + *address);
}

int blacklist_remove(const Config& config, const Options& options) {
  const auto address = option(options, "address");
  if (!address) return fail("blacklist-remove needs --address");
  auto pool = open_pool(config);
  auto removed = repositories::blacklist::remove(pool, "address", normalized_address(*address));
  if (!removed.ok()) return fail(removed.error().message);
  if (!*removed) return fail(*address + " is not blacklisted");
  std::printf("removed %s\n", address->c_str());
  return 0;
}

int blacklist_list(const Config& config, const Options&) {
  auto pool = open_pool(config);
  auto entries = repositories::blacklist::list(pool);
  if (!entries.ok()) return fail(entries.error().message);
  for (const auto& entry : *entries) {
    std::printf("%s\t%s\t%s\t%s\n", entry.created_at.c_str(), entry.kind.c_str(),
                entry.value.c_str(), entry.reason.c_str());
  }
  return 0;
}

// limits --org org_... --mode test|live [--auto-approval-usd N] [--per-payout-usd N]
//        [--daily-usd N] [--monthly-usd N]   (an omitted limit keeps the default)
int set_limits(const Config& config, const Options& options) {
  const auto org = option(options, "org");
  const auto mode = option(options, "mode");
  if (!org || !mode || !model::parse_mode(*mode)) return fail("limits needs --org and --mode");
  std::vector<std::optional<std::string>> values;
  for (const char* name : {"auto-approval-usd", "per-payout-usd", "daily-usd", "monthly-usd"}) {
    const auto value = option(options, name);
    if (value && !model::parse_decimal(*value))
      return fail(std::string(name) + " must be a decimal");
    values.push_back(value);
  }
  auto pool = open_pool(config);
  return report(repositories::spend::set_overrides(pool, *org, *model::parse_mode(*mode),
                                                   {values[0], values[1], values[2], values[3]}),
                "limits set for " + *org + " (" + *mode + ")");
}

int consumer_lag(const Config& config, const Options& options) {
  const auto topic_name = option(options, "topic");
  const auto* topic = topic_name ? topics::find_topic(*topic_name) : nullptr;
  if (topic == nullptr) return fail("consumer-lag needs --topic <registry topic name>");
  const auto group = option(options, "group").value_or(std::string(topic->consumer_group));
  auto lag = kafka::consumer_lag(config.kafka_brokers, group,
                                 topics::broker_topic_name(*topic, config.topic_prefix));
  if (!lag.ok()) return fail(lag.error().message);
  std::printf("%ld\n", *lag);
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
      {"org-status",
       {"org-status --org org_... --status active|suspended|closed",
        "suspend, reinstate or close an organization", org_status}},
      {"kyb-status",
       {"kyb-status --org org_... --status verified|rejected|pending|unverified",
        "record an operator's KYB review", kyb_status}},
      {"blacklist-add",
       {"blacklist-add --address 0x... [--reason text]", "add an address to the blacklist",
        blacklist_add}},
      {"blacklist-remove",
       {"blacklist-remove --address 0x...", "remove an address from the blacklist",
        blacklist_remove}},
      {"blacklist-list", {"blacklist-list", "list the internal blacklist", blacklist_list}},
      {"limits",
       {"limits --org org_... --mode test|live [--daily-usd N] ...",
        "override an organization's payout limits (USD)", set_limits}},
      {"consumer-lag",
       {"consumer-lag --topic payouts.requested [--group payrail-screening]",
        "messages the group has not committed yet", consumer_lag}},
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
