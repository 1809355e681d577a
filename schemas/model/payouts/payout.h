// The Payout resource as the API shows it (docs/api.md "Payouts"). The same rendering is
// used for API responses and for event snapshots, so they can never disagree.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/mode.h"

namespace payrail::model {

struct Payout {
  std::string id;
  Mode mode = Mode::test;
  std::string status;
  std::string amount;    // decimal string as accepted
  std::string currency;  // USDC, USDT, ETH
  std::string network;
  std::string address;
  std::string screening_status;  // pending, clear, blocked
  std::vector<std::string> screening_reasons;
  std::optional<std::string> tx_hash;
  std::optional<std::string> failure_reason;
  std::optional<std::string> metadata_json;  // compact JSON object text
  std::string created_at;
};

// Writes the members of the payout object (without the enclosing braces).
void write_payout_members(json::Writer& writer, const Payout& payout);

// {"id": ..., "object": "payout", ...}
std::string payout_json(const Payout& payout);

// The flat event snapshot (docs/api.md "Events and webhooks"):
// {"event", "event_id", "occurred_at", "sequence", <every payout field>}.
std::string payout_event_json(const Payout& payout, std::string_view event_type,
                              std::string_view event_id, std::string_view occurred_at,
                              int sequence);

}  // namespace payrail::model
