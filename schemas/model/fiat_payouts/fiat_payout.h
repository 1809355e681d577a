// The fiat payout resource as the API shows it (docs/fiat-payouts.md). One rendering serves API
// responses, list items and event snapshots, so they can never disagree. The beneficiary's
// account appears only in its masked form (model::ValidatedAccount::masked_json()); the full
// account never reaches this struct.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/mode.h"

namespace payrail::model {

// What funds the payout (an extension of the contract): the USDC held, and the USDC -> currency
// rate it was computed with (amount / rate rounded up to 6 decimals), as GET /v1/rates shows it.
struct FiatFunding {
  std::string usdc_amount;
  std::string rate;
  std::string rate_as_of;
};

// The payout partner's reference and when the beneficiary should have the funds (the partner
// accepted the payout at sent_at; the corridor's typical settlement time after it).
struct FiatTracking {
  std::string reference;
  std::string estimated_settlement;
};

struct FiatPayout {
  std::string id;
  Mode mode = Mode::test;
  std::string status;
  std::string amount;    // decimal string as accepted, in `currency`
  std::string currency;  // ISO 4217
  std::string country;   // ISO 3166-1 alpha-2
  std::string beneficiary_name;
  std::string account_masked_json;  // {"type": ..., <field>: "••••1234" | <value>}
  FiatFunding funding;
  std::string screening_status;  // pending, clear, blocked
  std::vector<std::string> screening_reasons;
  std::optional<FiatTracking> tracking;       // null until the partner accepted the payout
  std::optional<std::string> failure_reason;  // shown when failed
  std::optional<std::string> metadata_json;   // compact JSON object text
  std::string created_at;
};

// {"id": ..., "object": "fiat_payout", ...}: the whole resource (GET, create, cancel, approve).
std::string fiat_payout_json(const FiatPayout& payout);

// A list item: id, object, status, mode, amount, currency, country, created_at.
void write_fiat_payout_list_item(json::Writer& writer, const FiatPayout& payout);

// The flat event snapshot: {"event", "event_id", "occurred_at", "sequence", "object", "id",
// "status", "amount", "currency", "country", "mode", "created_at"} as the contract lists, plus
// the status details (screening_status, funding, tracking, failure_reason, screening_result,
// metadata). Never the beneficiary: events carry no personal data.
std::string fiat_payout_event_json(const FiatPayout& payout, std::string_view event_type,
                                   std::string_view event_id, std::string_view occurred_at,
                                   int sequence);

}  // namespace payrail::model
