// Live-mode fiat corridors and collection rails per organization (one mechanism for both), and
// the audit trail that records who enabled what. Corridor countries and collection methods are
// the corridor table's (schemas/model/fiat_payouts/corridors.h): nothing else can be enabled.
#include <algorithm>
#include <cstdio>
#include <vector>

#include "infra/programs/cli/command_table.h"
#include "infra/store/organizations/audit.h"
#include "infra/store/organizations/rails.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::infra::cli {
namespace {

namespace rails = store::rails;

struct Target {
  std::string org_id;
  rails::RailKind kind;
  std::string name;
  std::string actor;
};

std::optional<Target> target_of(const Options& options, rails::RailKind kind) {
  const auto org = option(options, "org");
  const auto actor = operator_name(options);
  const auto name = option(options, kind == rails::RailKind::fiat_corridor ? "country" : "method");
  if (!org || !actor || !name) return std::nullopt;
  return Target{*org, kind, *name, *actor};
}

// The corridor table's names, for messages: "AR|BR|..." or "interac_etransfer|eft|ach".
std::string table_names(rails::RailKind kind) {
  const bool corridors = kind == rails::RailKind::fiat_corridor;
  std::vector<std::string_view> names;
  for (const auto& method : model::payment_methods()) {
    const auto direction = corridors ? model::Direction::payout : model::Direction::collection;
    const auto name = corridors ? method.country : method.type;
    if (method.direction != direction) continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  std::string joined;
  for (const auto name : names) joined += (joined.empty() ? "" : "|") + std::string(name);
  return joined;
}

bool in_table(rails::RailKind kind, std::string_view name) {
  if (kind == rails::RailKind::fiat_corridor) return !model::payout_methods(name).empty();
  return model::find_collection_method(name) != nullptr;
}

int set_rail(const Config& config, const Options& options, rails::RailKind kind, bool enable) {
  const auto target = target_of(options, kind);
  if (!target) {
    return fail(
        std::string(kind == rails::RailKind::fiat_corridor ? "needs --org org_... --country "
                                                           : "needs --org org_... --method ") +
        table_names(kind) + " and an operator (--operator name, or PAYRAIL_OPERATOR / USER)");
  }
  if (!in_table(kind, target->name)) {
    return fail(std::string(kind == rails::RailKind::fiat_corridor ? "--country" : "--method") +
                " must be one of " + table_names(kind));
  }
  auto pool = open_pool(config);
  const auto what = std::string(rails::kind_name(kind)) + " " + target->name + " for " +
                    target->org_id + " (live mode)";
  if (enable) {
    return report(rails::enable(pool, target->org_id, kind, target->name, target->actor),
                  "enabled " + what);
  }
  auto disabled = rails::disable(pool, target->org_id, kind, target->name, target->actor);
  if (!disabled.ok()) return fail(disabled.error().message);
  if (!*disabled) return fail(what + " was not enabled");
  std::printf("disabled %s\n", what.c_str());
  return 0;
}

int list_rails(const Config& config, const Options& options) {
  const auto org = option(options, "org");
  if (!org) return fail("rails needs --org org_...");
  auto pool = open_pool(config);
  auto enabled = rails::list(pool, *org);
  if (!enabled.ok()) return fail(enabled.error().message);
  for (const auto& rail : *enabled) {
    std::printf("%s\t%s\tenabled by %s at %s\n", std::string(rails::kind_name(rail.kind)).c_str(),
                rail.name.c_str(), rail.enabled_by.c_str(), rail.enabled_at.c_str());
  }
  return 0;
}

int audit_log(const Config& config, const Options& options) {
  const auto limit = limit_option(options);
  if (!limit) return fail("--limit must be an integer from 1 to 1000");
  auto pool = open_pool(config);
  auto rows = store::audit::list(pool, option(options, "org"), *limit);
  if (!rows.ok()) return fail(rows.error().message);
  for (const auto& row : *rows) {
    const auto& entry = row.entry;
    std::printf("%s\t%s\t%s\t%s\t%s %s\t%s\n", row.occurred_at.c_str(), entry.actor.c_str(),
                entry.action.c_str(), entry.org_id.value_or("-").c_str(),
                entry.resource_type.c_str(), entry.resource_id.c_str(),
                entry.details.value_or("").c_str());
  }
  return 0;
}

}  // namespace

void add_rails_commands(CommandTable& table) {
  using rails::RailKind;
  table["corridor-enable"] = {"corridor-enable --org org_... --country MX [--operator name]",
                              "enable a fiat corridor for an organization's live mode",
                              [](const Config& c, const Options& o) {
                                return set_rail(c, o, RailKind::fiat_corridor, true);
                              }};
  table["corridor-disable"] = {"corridor-disable --org org_... --country MX [--operator name]",
                               "disable a live fiat corridor",
                               [](const Config& c, const Options& o) {
                                 return set_rail(c, o, RailKind::fiat_corridor, false);
                               }};
  table["rail-enable"] = {"rail-enable --org org_... --method ach [--operator name]",
                          "enable a collection rail for an organization's live mode",
                          [](const Config& c, const Options& o) {
                            return set_rail(c, o, RailKind::collection_rail, true);
                          }};
  table["rail-disable"] = {"rail-disable --org org_... --method ach [--operator name]",
                           "disable a live collection rail", [](const Config& c, const Options& o) {
                             return set_rail(c, o, RailKind::collection_rail, false);
                           }};
  table["rails"] = {"rails --org org_...", "an organization's enabled live corridors and rails",
                    list_rails};
  table["audit-log"] = {"audit-log [--org org_...] [--limit 100]",
                        "operator actions and member decisions, newest first", audit_log};
}

}  // namespace payrail::infra::cli
