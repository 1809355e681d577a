// Organization commands: status, KYB review, limits.
#include <cstdio>

#include "infra/cli/command_table.h"
#include "infra/repositories/organizations.h"
#include "infra/repositories/spend.h"

namespace payrail::infra::cli {
namespace {

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

}  // namespace

void add_organization_commands(CommandTable& table) {
  table["org-status"] = {"org-status --org org_... --status active|suspended|closed",
                         "suspend, reinstate or close an organization", org_status};
  table["kyb-status"] = {"kyb-status --org org_... --status verified|rejected|pending|unverified",
                         "record an operator's KYB review", kyb_status};
  table["limits"] = {"limits --org org_... --mode test|live [--daily-usd N] ...",
                     "override an organization's payout limits (USD)", set_limits};
}

}  // namespace payrail::infra::cli
