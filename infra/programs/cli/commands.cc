#include "infra/programs/cli/commands.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "infra/programs/cli/command_table.h"

namespace payrail::infra::cli {
namespace {

const CommandTable& commands() {
  static const CommandTable table = [] {
    CommandTable built;
    add_setup_commands(built);
    add_kafka_commands(built);
    add_organization_commands(built);
    add_kyb_commands(built);
    add_screening_commands(built);
    add_rails_commands(built);
    add_collection_commands(built);
    add_message_commands(built);
    add_key_commands(built);
    add_evm_commands(built);
    return built;
  }();
  return table;
}

int usage() {
  std::printf("usage: payrail <command> [--option value ...]\n\ncommands:\n");
  for (const auto& [name, command] : commands()) {
    std::printf("  %-70s %s\n", command.usage.c_str(), command.summary.c_str());
  }
  return 2;
}

std::optional<Options> parse_options(const std::vector<std::string>& arguments) {
  Options options;
  for (std::size_t i = 1; i < arguments.size();) {
    if (!arguments[i].starts_with("--") || arguments[i].size() < 3) return std::nullopt;
    const auto name = arguments[i].substr(2);
    const bool has_value = i + 1 < arguments.size() && !arguments[i + 1].starts_with("--");
    options[name] = has_value ? arguments[i + 1] : "true";
    i += has_value ? 2 : 1;
  }
  return options;
}

}  // namespace

int fail(const std::string& message) {
  std::fprintf(stderr, "payrail: %s\n", message.c_str());
  return 1;
}

std::optional<int> limit_option(const Options& options) {
  constexpr int kListLimitMax = 1000;
  const auto text = option(options, "limit").value_or("100");
  int limit = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), limit);
  if (error != std::errc() || end != text.data() + text.size() || limit < 1 ||
      limit > kListLimitMax) {
    return std::nullopt;
  }
  return limit;
}

std::optional<std::string> option(const Options& options, const std::string& name) {
  const auto it = options.find(name);
  if (it == options.end()) return std::nullopt;
  return it->second;
}

bool flag(const Options& options, const std::string& name) {
  return option(options, name) == "true";
}

std::optional<std::string> operator_name(const Options& options) {
  if (auto named = option(options, "operator"); named && !named->empty()) return named;
  for (const char* variable : {"PAYRAIL_OPERATOR", "SUDO_USER", "USER"}) {
    const char* value = std::getenv(variable);
    if (value != nullptr && *value != '\0') return std::string(value);
  }
  return std::nullopt;
}

int report(const model::Status& status, const std::string& done) {
  if (!status.ok()) return fail(status.error().message);
  std::printf("%s\n", done.c_str());
  return 0;
}

pg::Pool open_pool(const Config& config) {
  return pg::Pool(pg::PoolOptions{.url = config.database_url, .max_connections = 1});
}

int run(const std::vector<std::string>& arguments) {
  if (arguments.empty() || arguments[0] == "help" || arguments[0] == "--help") return usage();
  const auto command = commands().find(arguments[0]);
  if (command == commands().end()) return usage();
  const auto options = parse_options(arguments);
  if (!options) return usage();
  auto config = load_config_from_environment();
  if (!config.ok()) return fail(config.error().message);
  try {
    return command->second.run(*config, *options);
  } catch (const std::exception& failure) {
    return fail(failure.what());
  }
}

}  // namespace payrail::infra::cli
