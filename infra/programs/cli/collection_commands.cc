// Collections for operators: the provider notifications that were not applied (unmatched
// references, late and duplicate payments, failures that did not apply), and the ingress that
// records a provider's notification by hand exactly as an adapter does (deduplicated by the
// provider, mode and event id; an id repeated with other content is recorded as an exception):
// for notifications a provider delivers out of band, and for the `simulated` provider of a
// staging live mode.
#include <cstdio>

#include "infra/adapters/collections/provider.h"
#include "infra/plumbing/time/clock.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/collections/collection_provider_events.h"
#include "infra/store/organizations/audit.h"
#include "schemas/model/collections/collection.h"
#include "schemas/model/common/json.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/money.h"

namespace payrail::infra::cli {
namespace {

namespace provider_events = store::collection_provider_events;
using model::ProviderEvent;

constexpr std::size_t kProviderEventIdLengthMax = 200;

int list_exceptions(const Config& config, const Options& options) {
  const auto limit = limit_option(options);
  if (!limit) return fail("--limit must be an integer from 1 to 1000");
  std::optional<model::Mode> mode;
  if (const auto text = option(options, "mode")) {
    mode = model::parse_mode(*text);
    if (!mode) return fail("--mode must be test or live");
  }
  auto pool = open_pool(config);
  auto rows = provider_events::exceptions(pool, mode, *limit);
  if (!rows.ok()) return fail(rows.error().message);
  for (const auto& row : *rows) {
    const auto& event = row.event;
    // The reference is what the payer wrote: shown to the operator, never logged. The
    // organization is the matched collection's, or the one whose own account received it.
    const auto organization = row.org_id ? row.org_id : row.event.org_id;
    std::printf("%s\t%s\t%s\t%s\t%s\t%s %s\t%s\t%s\t%s/%s\t%s\t%s\n", row.id.c_str(),
                row.recorded_at.c_str(), std::string(model::mode_name(event.mode)).c_str(),
                row.outcome.value_or("pending").c_str(),
                std::string(model::provider_event_type_name(event.type)).c_str(),
                event.amount.c_str(), event.currency.c_str(), event.method.c_str(),
                row.collection_id.value_or("-").c_str(), event.provider.c_str(),
                event.provider_event_id.c_str(), event.reference.c_str(),
                organization.value_or("-").c_str());
  }
  return 0;
}

// Every option a notification needs, checked as the API checks the same values.
model::Result<ProviderEvent> notification_of(const Options& options) {
  ProviderEvent event;
  for (const char* name :
       {"provider", "event-id", "type", "mode", "method", "reference", "amount", "currency"}) {
    if (!option(options, name)) return model::bad_request(std::string("needs --") + name);
  }
  event.provider = *option(options, "provider");
  if (event.provider.empty() || !collections::is_known_provider(event.provider)) {
    return model::bad_request("--provider must name a collection provider (simulated)");
  }
  event.provider_event_id = *option(options, "event-id");
  if (auto checked =
          model::json::check_text(event.provider_event_id, "--event-id", kProviderEventIdLengthMax);
      !checked.ok()) {
    return checked.error();
  }
  const auto type = model::parse_provider_event_type(*option(options, "type"));
  const auto mode = model::parse_mode(*option(options, "mode"));
  const auto* method = model::find_collection_method(*option(options, "method"));
  if (!type) return model::bad_request("--type must be payment_received|failed|returned");
  if (!mode) return model::bad_request("--mode must be test or live");
  if (method == nullptr) return model::bad_request("--method must be interac_etransfer|ach|eft");
  event.type = *type;
  event.mode = *mode;
  event.method = std::string(method->type);
  event.reference = *option(options, "reference");
  if (auto checked =
          model::json::check_text(event.reference, "--reference", model::kReferenceInputLengthMax);
      !checked.ok()) {
    return checked.error();
  }
  event.currency = *option(options, "currency");
  const auto units = model::minor_units(event.currency);
  if (!units) return model::bad_request("--currency must be a corridor currency (CAD, USD, ...)");
  auto amount = model::parse_amount(*option(options, "amount"), *units, "--amount");
  if (!amount.ok()) return amount.error();
  event.amount = model::format_decimal(*amount);
  const auto occurred = option(options, "occurred-at");
  if (occurred && !time::parse_utc(*occurred)) {
    return model::bad_request("--occurred-at must be an ISO 8601 UTC timestamp");
  }
  event.occurred_at = occurred ? *occurred : time::format_utc(time::now_utc());
  return event;
}

int record_notification(const Config& config, const Options& options) {
  auto event = notification_of(options);
  if (!event.ok()) return fail(event.error().message);
  const auto actor = operator_name(options);
  if (!actor) return fail("needs an operator (--operator name, or PAYRAIL_OPERATOR / USER)");
  auto pool = open_pool(config);
  auto recorded = pool.transact([&](pqxx::work& tx) -> model::Result<provider_events::Recorded> {
    auto result = provider_events::record(tx, *event);
    if (!result.duplicate) {
      store::audit::record(tx, {*actor, "collection.provider_event_recorded", std::nullopt,
                                "collection_provider_event", result.id,
                                event->provider + "/" + event->provider_event_id});
    }
    return result;
  });
  if (!recorded.ok()) return fail(recorded.error().message);
  if (recorded->conflicts_with) {
    // Not applied: an operator settles it with the provider (collection-exceptions lists it).
    std::printf("conflicting duplicate of %s, recorded %s for an operator\n",
                recorded->conflicts_with->c_str(), recorded->id.c_str());
  } else {
    std::printf("%s %s\n", recorded->duplicate ? "duplicate of" : "recorded", recorded->id.c_str());
  }
  return 0;
}

}  // namespace

void add_collection_commands(CommandTable& table) {
  table["collection-exceptions"] = {
      "collection-exceptions [--mode test|live] [--limit 100]",
      "provider notifications not applied to a collection (unmatched, late, duplicate, pending)",
      list_exceptions};
  table["collection-provider-event"] = {
      "collection-provider-event --provider simulated --event-id ID --type payment_received "
      "--mode live --method ach --reference PR... --amount 10.00 --currency USD",
      "record a collection provider's notification (deduplicated by --mode and --event-id)",
      record_notification};
}

}  // namespace payrail::infra::cli
