// Organization commands: suspend, reinstate and close through the organization lifecycle
// (schemas/model/organizations/organization_lifecycle.h), each recorded with the operator's name;
// limits.
#include <cstdio>

#include "infra/programs/cli/command_table.h"
#include "infra/store/money/spend.h"
#include "infra/store/organizations/organizations.h"
#include "schemas/model/common/json.h"

namespace payrail::infra::cli {
namespace {

namespace organizations = store::organizations;

constexpr std::size_t kReasonLengthMax = 2000;

// org-suspend | org-reinstate | org-close --org org_... [--reason text] [--operator name]
int change_status(const Config& config, const Options& options,
                  model::OrganizationTrigger trigger) {
  const auto name = "org-" + std::string(model::organization_trigger_name(trigger));
  const auto org = option(options, "org");
  const auto actor = operator_name(options);
  if (!org || !actor) {
    return fail(name +
                " needs --org org_... and an operator (--operator name, or "
                "PAYRAIL_OPERATOR / USER)");
  }
  const auto reason = option(options, "reason");
  if (reason) {
    if (auto checked = model::json::check_text(*reason, "--reason", kReasonLengthMax);
        !checked.ok()) {
      return fail(checked.error().message);
    }
  }
  auto pool = open_pool(config);
  auto changed = organizations::change_status(pool, *org, trigger, *actor, reason);
  if (!changed.ok()) return fail(changed.error().message);
  std::printf("%s is %s (was %s)\n", org->c_str(),
              std::string(model::organization_status_name(changed->to)).c_str(),
              std::string(model::organization_status_name(changed->from)).c_str());
  if (model::find_organization_transition(changed->from, trigger)->effects.cancels_unsent) {
    const auto& cancelled = changed->cancelled;
    std::printf("cancelled %d payouts, %d fiat payouts and %d collections not yet sent or paid\n",
                cancelled.payouts, cancelled.fiat_payouts, cancelled.collections);
  }
  return 0;
}

Command status_command(model::OrganizationTrigger trigger, const std::string& summary) {
  const auto name = "org-" + std::string(model::organization_trigger_name(trigger));
  return {name + " --org org_... [--reason text] [--operator name]", summary,
          [trigger](const Config& config, const Options& options) {
            return change_status(config, options, trigger);
          }};
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
  return report(store::spend::set_overrides(pool, *org, *model::parse_mode(*mode),
                                            {values[0], values[1], values[2], values[3]}),
                "limits set for " + *org + " (" + *mode + ")");
}

}  // namespace

void add_organization_commands(CommandTable& table) {
  using model::OrganizationTrigger;
  table["org-suspend"] = status_command(
      OrganizationTrigger::suspend, "suspend an organization (403 org_suspended on every request)");
  table["org-reinstate"] =
      status_command(OrganizationTrigger::reinstate, "lift an organization's suspension");
  table["org-close"] = status_command(
      OrganizationTrigger::close,
      "close an organization for good (final); cancels its payouts and collections not yet sent");
  table["limits"] = {"limits --org org_... --mode test|live [--daily-usd N] ...",
                     "override an organization's payout limits (USD)", set_limits};
}

}  // namespace payrail::infra::cli
