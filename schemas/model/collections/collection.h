// The Collection resource as the API shows it (docs/collections.md), and the payment references
// that match incoming payments to collections. One rendering serves API responses and event
// snapshots, so they can never disagree.
#pragma once

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/mode.h"

namespace payrail::model {

struct Collection {
  std::string id;
  Mode mode = Mode::test;
  std::string status;
  std::string amount;                     // decimal string as requested
  std::string currency;                   // ISO 4217
  std::string method;                     // interac_etransfer, ach, eft
  std::string payment_instructions_json;  // compact JSON object, fixed at creation
  std::optional<std::string> customer_reference;
  std::optional<std::string> metadata_json;    // compact JSON object text
  std::optional<std::string> received_amount;  // what arrived, once received
  std::optional<std::string> settled_asset;    // USDC, once settled
  std::optional<std::string> settled_amount;   // USDC credited, 6 decimals
  std::optional<std::string> exchange_rate;    // currency -> USDC rate used
  std::optional<std::string> failure_reason;   // payment_failed, payment_returned
  std::string expires_at;
  std::string created_at;
};

// A payment that carried this collection's reference but was not credited: it arrived after the
// collection expired or was cancelled (late_payment), or after it had already been paid
// (duplicate_payment). An operator settles it with the payer (docs/collections.md).
struct UnappliedPayment {
  std::string amount;
  std::string currency;
  std::string received_at;
  std::string reason;
};

// Writes the members of the collection object (without the enclosing braces).
void write_collection_members(json::Writer& writer, const Collection& collection);

// {"id": ..., "object": "collection", ...}; `unapplied_payments` only when there are any.
std::string collection_json(const Collection& collection,
                            std::span<const UnappliedPayment> unapplied = {});

// A list item: id, object, status, mode, amount, currency, method, created_at.
void write_collection_list_item(json::Writer& writer, const Collection& collection);

// The flat event snapshot: {"event", "event_id", "occurred_at", "sequence", <collection fields>}.
std::string collection_event_json(const Collection& collection, std::string_view event_type,
                                  std::string_view event_id, std::string_view occurred_at,
                                  int sequence);

// Payment references: "PR" and 10 characters of Crockford's base32 alphabet (digits and capitals
// without I, L, O and U), 12 characters in all: short enough for any transfer's message field
// (Interac, ACH addenda, EFT), unambiguous to read aloud or retype.
inline constexpr std::string_view kReferencePrefix = "PR";
inline constexpr std::size_t kReferenceRandomLength = 10;
inline constexpr std::size_t kReferenceInputLengthMax = 200;

// A reference from random bytes (at least kReferenceRandomLength of them; each byte picks one
// character, 256 being a multiple of 32 so every character is equally likely).
std::string reference_from_random(std::string_view random_bytes);

// The form references are matched in: ASCII letters upper-cased, spaces and hyphens removed, and
// Crockford's look-alikes read as the digits they stand for (O -> 0, I and L -> 1). A payer who
// writes "pr7k-3m9q 2xwa" matches "PR7K3M9Q2XWA"; anything else must match exactly. Reads the
// first kReferenceInputLengthMax characters; clean text stays clean.
std::string normalize_reference(std::string_view text);

bool is_reference(std::string_view text);

}  // namespace payrail::model
