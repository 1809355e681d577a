#include "schemas/model/fiat_payouts/fiat_payout.h"

#include "schemas/model/webhooks/event_snapshot.h"

namespace payrail::model {
namespace {

using json::write_key;
using json::write_key_string;

void write_summary(json::Writer& writer, const FiatPayout& payout) {
  write_key_string(writer, "id", payout.id);
  write_key_string(writer, "object", "fiat_payout");
  write_key_string(writer, "status", payout.status);
  write_key_string(writer, "mode", mode_name(payout.mode));
  write_key_string(writer, "amount", payout.amount);
  write_key_string(writer, "currency", payout.currency);
  write_key_string(writer, "country", payout.country);
}

void write_funding(json::Writer& writer, const FiatFunding& funding) {
  write_key(writer, "funding");
  writer.StartObject();
  write_key_string(writer, "currency", "USDC");
  write_key_string(writer, "amount", funding.usdc_amount);
  write_key_string(writer, "rate", funding.rate);
  write_key_string(writer, "rate_as_of", funding.rate_as_of);
  writer.EndObject();
}

void write_tracking(json::Writer& writer, const std::optional<FiatTracking>& tracking) {
  write_key(writer, "tracking");
  if (!tracking) {
    writer.Null();
    return;
  }
  writer.StartObject();
  write_key_string(writer, "reference", tracking->reference);
  write_key_string(writer, "estimated_settlement", tracking->estimated_settlement);
  writer.EndObject();
}

// Everything that follows the status: screening, funding, tracking, failure, metadata.
void write_details(json::Writer& writer, const FiatPayout& payout) {
  write_key_string(writer, "screening_status", payout.screening_status);
  if (payout.screening_status == "blocked") {
    write_key(writer, "screening_result");
    writer.StartObject();
    write_key_string(writer, "status", "blocked");
    write_key(writer, "reasons");
    writer.StartArray();
    for (const auto& reason : payout.screening_reasons) json::write_string(writer, reason);
    writer.EndArray();
    writer.EndObject();
  }
  write_funding(writer, payout.funding);
  write_tracking(writer, payout.tracking);
  if (payout.status == "failed" && payout.failure_reason) {
    write_key_string(writer, "failure_reason", *payout.failure_reason);
  }
  if (payout.metadata_json) {
    write_key(writer, "metadata");
    writer.RawValue(payout.metadata_json->data(), payout.metadata_json->size(),
                    rapidjson::kObjectType);
  }
}

}  // namespace

std::string fiat_payout_json(const FiatPayout& payout) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  writer.StartObject();
  write_summary(writer, payout);
  write_key(writer, "beneficiary");
  writer.StartObject();
  write_key_string(writer, "name", payout.beneficiary_name);
  write_key(writer, "account");
  writer.RawValue(payout.account_masked_json.data(), payout.account_masked_json.size(),
                  rapidjson::kObjectType);
  writer.EndObject();
  write_details(writer, payout);
  write_key_string(writer, "created_at", payout.created_at);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void write_fiat_payout_list_item(json::Writer& writer, const FiatPayout& payout) {
  writer.StartObject();
  write_summary(writer, payout);
  write_key_string(writer, "created_at", payout.created_at);
  writer.EndObject();
}

std::string fiat_payout_event_json(const FiatPayout& payout, std::string_view event_type,
                                   std::string_view event_id, std::string_view occurred_at,
                                   int sequence) {
  return event_snapshot_json(event_type, event_id, occurred_at, sequence,
                             [&](json::Writer& writer) {
                               write_summary(writer, payout);
                               write_details(writer, payout);
                               json::write_key_string(writer, "created_at", payout.created_at);
                             });
}

}  // namespace payrail::model
