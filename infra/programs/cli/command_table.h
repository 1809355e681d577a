// The operator command line's building blocks: each group of commands lives in its own file
// (setup, kafka, organizations, screening, ...) and adds itself to one table; `payrail help`
// lists them all.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

#include "infra/plumbing/pg/pool.h"
#include "infra/programs/config/config.h"

namespace payrail::infra::cli {

// `--name value` pairs after the command word; a `--name` followed by another option or by
// nothing is a flag with the value "true".
using Options = std::map<std::string, std::string>;

struct Command {
  std::string usage;
  std::string summary;
  std::function<int(const Config&, const Options&)> run;
};

using CommandTable = std::map<std::string, Command>;

void add_setup_commands(CommandTable& table);
void add_kafka_commands(CommandTable& table);
void add_organization_commands(CommandTable& table);
void add_kyb_commands(CommandTable& table);
void add_screening_commands(CommandTable& table);
void add_rails_commands(CommandTable& table);
void add_collection_commands(CommandTable& table);
void add_key_commands(CommandTable& table);
void add_message_commands(CommandTable& table);
void add_evm_commands(CommandTable& table);

// Prints "payrail: <message>" to stderr; returns the failure exit code (1).
int fail(const std::string& message);
std::optional<std::string> option(const Options& options, const std::string& name);
bool flag(const Options& options, const std::string& name);
// --limit for listings: 100 when absent; nothing when it is not an integer from 1 to 1000.
std::optional<int> limit_option(const Options& options);
// Who is acting, for the audit log: --operator, else $PAYRAIL_OPERATOR, $SUDO_USER or $USER.
std::optional<std::string> operator_name(const Options& options);
// Prints `done` on success, the error otherwise; returns the exit code.
int report(const model::Status& status, const std::string& done);
pg::Pool open_pool(const Config& config);

}  // namespace payrail::infra::cli
