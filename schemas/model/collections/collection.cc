#include "schemas/model/collections/collection.h"

#include "schemas/model/webhooks/event_snapshot.h"

namespace payrail::model {
namespace {

constexpr std::string_view kReferenceAlphabet = "0123456789ABCDEFGHJKMNPQRSTVWXYZ";

// What a list item and the full object both start with.
void write_summary(json::Writer& writer, const Collection& collection) {
  using namespace json;
  write_key_string(writer, "id", collection.id);
  write_key_string(writer, "object", "collection");
  write_key_string(writer, "status", collection.status);
  write_key_string(writer, "mode", mode_name(collection.mode));
  write_key_string(writer, "amount", collection.amount);
  write_key_string(writer, "currency", collection.currency);
  write_key_string(writer, "method", collection.method);
}

void write_instructions(json::Writer& writer, const Collection& collection) {
  json::write_key(writer, "payment_instructions");
  writer.RawValue(collection.payment_instructions_json.data(),
                  collection.payment_instructions_json.size(), rapidjson::kObjectType);
}

void write_unapplied(json::Writer& writer, std::span<const UnappliedPayment> unapplied) {
  json::write_key(writer, "unapplied_payments");
  writer.StartArray();
  for (const auto& payment : unapplied) {
    writer.StartObject();
    json::write_key_string(writer, "amount", payment.amount);
    json::write_key_string(writer, "currency", payment.currency);
    json::write_key_string(writer, "received_at", payment.received_at);
    json::write_key_string(writer, "reason", payment.reason);
    writer.EndObject();
  }
  writer.EndArray();
}

}  // namespace

void write_collection_members(json::Writer& writer, const Collection& collection) {
  using namespace json;
  write_summary(writer, collection);
  write_instructions(writer, collection);
  write_key_nullable(writer, "customer_reference", collection.customer_reference);
  if (collection.metadata_json) {
    write_key(writer, "metadata");
    writer.RawValue(collection.metadata_json->data(), collection.metadata_json->size(),
                    rapidjson::kObjectType);
  }
  write_key_nullable(writer, "received_amount", collection.received_amount);
  write_key_nullable(writer, "settled_asset", collection.settled_asset);
  write_key_nullable(writer, "settled_amount", collection.settled_amount);
  write_key_nullable(writer, "exchange_rate", collection.exchange_rate);
  if (collection.status == "failed" && collection.failure_reason) {
    write_key_string(writer, "failure_reason", *collection.failure_reason);
  }
  write_key_string(writer, "expires_at", collection.expires_at);
  write_key_string(writer, "created_at", collection.created_at);
}

std::string collection_json(const Collection& collection,
                            std::span<const UnappliedPayment> unapplied) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  writer.StartObject();
  write_collection_members(writer, collection);
  if (!unapplied.empty()) write_unapplied(writer, unapplied);
  writer.EndObject();
  return std::string(buffer.GetString(), buffer.GetSize());
}

void write_collection_list_item(json::Writer& writer, const Collection& collection) {
  using namespace json;
  writer.StartObject();
  write_summary(writer, collection);
  write_key_string(writer, "created_at", collection.created_at);
  writer.EndObject();
}

std::string collection_event_json(const Collection& collection, std::string_view event_type,
                                  std::string_view event_id, std::string_view occurred_at,
                                  int sequence) {
  return event_snapshot_json(
      event_type, event_id, occurred_at, sequence,
      [&](json::Writer& writer) { write_collection_members(writer, collection); });
}

std::string reference_from_random(std::string_view random_bytes) {
  std::string reference(kReferencePrefix);
  for (std::size_t i = 0; i < kReferenceRandomLength && i < random_bytes.size(); ++i) {
    const auto byte = static_cast<unsigned char>(random_bytes[i]);
    reference += kReferenceAlphabet[byte % kReferenceAlphabet.size()];
  }
  return reference;
}

std::string normalize_reference(std::string_view text) {
  std::string normalized;
  // At most kReferenceInputLengthMax characters, cut between characters: cutting bytes could end
  // in half a UTF-8 sequence, which PostgreSQL refuses.
  std::size_t characters = 0;
  for (const char c : text) {
    const bool starts_character = (static_cast<unsigned char>(c) & 0xC0) != 0x80;
    if (starts_character && ++characters > kReferenceInputLengthMax) break;
    if (c == ' ' || c == '-') continue;
    char upper = (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c;
    if (upper == 'O') upper = '0';
    if (upper == 'I' || upper == 'L') upper = '1';
    normalized += upper;
  }
  return normalized;
}

bool is_reference(std::string_view text) {
  if (text.size() != kReferencePrefix.size() + kReferenceRandomLength) return false;
  if (!text.starts_with(kReferencePrefix)) return false;
  for (const char c : text.substr(kReferencePrefix.size())) {
    if (kReferenceAlphabet.find(c) == std::string_view::npos) return false;
  }
  return true;
}

}  // namespace payrail::model
