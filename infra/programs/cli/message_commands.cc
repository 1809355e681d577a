// Messages a worker parked after they kept failing (0011_message_failures.sql): the listing an
// operator reads, and the re-drive once the cause is fixed. Re-driving publishes the message
// again from the outbox; its attempts start again, and the worker applies it (idempotently) or,
// if it still fails, parks it again.
#include <cstdio>

#include "infra/programs/cli/command_table.h"
#include "infra/store/organizations/audit.h"
#include "infra/store/outbox/message_failures.h"
#include "topics/registry.h"

namespace payrail::infra::cli {
namespace {

namespace message_failures = store::message_failures;

int list_failures(const Config& config, const Options& options) {
  const auto limit = limit_option(options);
  if (!limit) return fail("--limit must be an integer from 1 to 1000");
  const auto status = option(options, "status").value_or("");
  if (!status.empty() && status != "retrying" && status != "parked" && status != "redriven" &&
      status != "resolved") {
    return fail("--status must be retrying, parked, redriven or resolved");
  }
  auto pool = open_pool(config);
  auto rows =
      pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<message_failures::Row>> {
        return message_failures::list(tx, status, *limit);
      });
  if (!rows.ok()) return fail(rows.error().message);
  for (const auto& row : *rows) {
    std::printf("%s\t%s\t%s\t%s\t%s\tattempts %d\tredriven %d\t%s\t%s\n", row.message_id.c_str(),
                row.status.c_str(), row.topic.c_str(), row.consumer_group.c_str(),
                row.resource_id.c_str(), row.attempts, row.redrive_count,
                row.last_failed_at.c_str(), row.last_error.c_str());
  }
  return 0;
}

int redrive(const Config& config, const Options& options) {
  const auto message_id = option(options, "message");
  const auto topic = option(options, "topic");
  if (!message_id && !topic && !flag(options, "all")) {
    return fail("name what to re-drive: --message msg_..., --topic payouts.requested or --all");
  }
  if (topic && topics::find_topic(*topic) == nullptr) return fail("--topic names no topic");
  const auto actor = operator_name(options);
  if (!actor) return fail("needs an operator (--operator name, or PAYRAIL_OPERATOR / USER)");
  auto pool = open_pool(config);
  auto redriven = pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<std::string>> {
    auto ids = message_failures::redrive(tx, message_id, topic);
    for (const auto& id : ids) {
      store::audit::record(tx,
                           {*actor, "message.redriven", std::nullopt, "message", id, std::nullopt});
    }
    return ids;
  });
  if (!redriven.ok()) return fail(redriven.error().message);
  for (const auto& id : *redriven) std::printf("redriven %s\n", id.c_str());
  std::printf("%zu message(s) re-driven\n", redriven->size());
  return 0;
}

}  // namespace

void add_message_commands(CommandTable& table) {
  table["message-failures"] = {
      "message-failures [--status retrying|parked|redriven|resolved] [--limit 100]",
      "messages workers failed to apply: retrying, parked for an operator, re-driven, resolved",
      list_failures};
  table["message-redrive"] = {
      "message-redrive (--message msg_... | --topic payouts.requested | --all) [--operator name]",
      "publish parked messages again once the cause of their failure is fixed", redrive};
}

}  // namespace payrail::infra::cli
