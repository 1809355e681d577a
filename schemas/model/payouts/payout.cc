#include "schemas/model/payouts/payout.h"

#include "schemas/model/webhooks/event_snapshot.h"

namespace payrail::model {

void write_payout_members(json::Writer& writer, const Payout& payout) {
  using namespace json;
  write_key_string(writer, "id", payout.id);
  write_key_string(writer, "object", "payout");
  write_key_string(writer, "status", payout.status);
  write_key_string(writer, "mode", mode_name(payout.mode));
  write_key_string(writer, "amount", payout.amount);
  write_key_string(writer, "currency", payout.currency);
  write_key_string(writer, "rail", "stablecoin");
  write_key(writer, "destination");
  writer.StartObject();
  write_key_string(writer, "network", payout.network);
  write_key_string(writer, "address", payout.address);
  writer.EndObject();
  write_key_string(writer, "screening_status", payout.screening_status);
  write_key_nullable(writer, "tx_hash", payout.tx_hash);
  if (payout.status == "failed" && payout.failure_reason) {
    write_key_string(writer, "failure_reason", *payout.failure_reason);
  }
  if (payout.metadata_json) {
    write_key(writer, "metadata");
    writer.RawValue(payout.metadata_json->data(), payout.metadata_json->size(),
                    rapidjson::kObjectType);
  }
  if (payout.screening_status == "blocked") {
    write_key(writer, "screening_result");
    writer.StartObject();
    write_key_string(writer, "status", "blocked");
    write_key(writer, "reasons");
    writer.StartArray();
    for (const auto& reason : payout.screening_reasons) write_string(writer, reason);
    writer.EndArray();
    writer.EndObject();
  }
  write_key_string(writer, "created_at", payout.created_at);
}

std::string payout_json(const Payout& payout) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  writer.StartObject();
  write_payout_members(writer, payout);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

std::string payout_event_json(const Payout& payout, std::string_view event_type,
                              std::string_view event_id, std::string_view occurred_at,
                              int sequence) {
  return event_snapshot_json(event_type, event_id, occurred_at, sequence,
                             [&](json::Writer& writer) { write_payout_members(writer, payout); });
}

}  // namespace payrail::model
