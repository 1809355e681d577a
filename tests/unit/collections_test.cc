// Collections, pure parts: payment references (format, use of randomness, the normalization that
// matches what payers type), the simulated provider's instructions (shape per method; the
// account fields pass the same checks as a fiat payout beneficiary's: the ABA checksum, Canadian
// institution and transit formats), the provider boundary's live gating, and the resource's
// rendering (full object, list item, event snapshot).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <set>
#include <string>

#include "infra/adapters/collections/provider.h"
#include "schemas/model/collections/collection.h"
#include "schemas/model/common/text.h"
#include "schemas/model/fiat_payouts/account_checks.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail {
namespace {

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

std::set<std::string> keys_of(const rapidjson::Value& object) {
  std::set<std::string> keys;
  for (const auto& member : object.GetObject()) keys.insert(member.name.GetString());
  return keys;
}

TEST(CollectionReferences, TwelveCharactersOfTheUnambiguousAlphabet) {
  const std::string zeros(10, '\0');
  EXPECT_EQ(model::reference_from_random(zeros), "PR0000000000");
  const std::string high(10, '\xff');
  EXPECT_EQ(model::reference_from_random(high), "PRZZZZZZZZZZ");  // 255 % 32 = 31: the last
  std::set<char> seen;
  std::string all;
  for (int byte = 0; byte < 256; ++byte) {
    const auto reference = model::reference_from_random(std::string(10, static_cast<char>(byte)));
    ASSERT_TRUE(model::is_reference(reference)) << reference;
    seen.insert(reference.back());
  }
  EXPECT_EQ(seen.size(), 32u);  // every character reachable, each from exactly 8 byte values
  for (const char excluded : {'I', 'L', 'O', 'U'}) EXPECT_FALSE(seen.contains(excluded));
}

TEST(CollectionReferences, RecognizesOnlyTheFormat) {
  EXPECT_TRUE(model::is_reference("PR7K3M9Q2XWA"));
  EXPECT_FALSE(model::is_reference("PR7K3M9Q2XW"));    // too short
  EXPECT_FALSE(model::is_reference("PR7K3M9Q2XWAB"));  // too long
  EXPECT_FALSE(model::is_reference("XX7K3M9Q2XWA"));   // prefix
  EXPECT_FALSE(model::is_reference("PR7K3M9Q2XWO"));   // O is not in the alphabet
  EXPECT_FALSE(model::is_reference("pr7k3m9q2xwa"));   // only the normalized form
}

TEST(CollectionReferences, NormalizationForgivesCaseSpacesHyphensAndLookAlikes) {
  EXPECT_EQ(model::normalize_reference("PR7K3M9Q2XWA"), "PR7K3M9Q2XWA");
  EXPECT_EQ(model::normalize_reference("pr7k-3m9q 2xwa"), "PR7K3M9Q2XWA");
  EXPECT_EQ(model::normalize_reference("PRO1IL"), "PR0111");
  // Anything else stays as it is: extra words never match a reference.
  EXPECT_EQ(model::normalize_reference("Invoice PR7K3M9Q2XWA"), "1NV01CEPR7K3M9Q2XWA");
  EXPECT_EQ(model::normalize_reference(std::string(500, 'a')).size(),
            model::kReferenceInputLengthMax);
}

// A client's reference is clean text of at most 200 characters (the handler checks it), and its
// normalized form goes to PostgreSQL: a cut through a character would be refused there (a 500).
TEST(CollectionReferences, NormalizationCutsBetweenCharacters) {
  std::string accented = "a";
  for (int i = 0; i < 250; ++i) accented += "\xC3\xA9";  // é
  const auto normalized = model::normalize_reference(accented);
  EXPECT_TRUE(model::text::is_clean(normalized));
  EXPECT_EQ(model::text::character_count(normalized), model::kReferenceInputLengthMax);
}

// The virtual account of an instruction is a valid bank account by the corridor table's rules.
void expect_valid_account(std::string_view country, std::string_view currency,
                          const std::string& account_json) {
  const auto account = parse(account_json);
  const auto validated = model::validate_beneficiary_account(country, currency, account);
  EXPECT_TRUE(validated.ok()) << account_json << ": "
                              << (validated.ok() ? "" : validated.error().message);
}

TEST(SimulatedProvider, InteracInstructions) {
  const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
  const auto json = parse(provider.instructions_json(
      *model::find_collection_method("interac_etransfer"), "PR7K3M9Q2XWA"));
  EXPECT_EQ(keys_of(json), (std::set<std::string>{"type", "send_to", "reference", "auto_deposit"}));
  EXPECT_STREQ(json["type"].GetString(), "interac_etransfer");
  EXPECT_STREQ(json["reference"].GetString(), "PR7K3M9Q2XWA");
  EXPECT_NE(std::string(json["send_to"].GetString()).find('@'), std::string::npos);
  EXPECT_TRUE(json["auto_deposit"].GetBool());
}

TEST(SimulatedProvider, AchVirtualAccountPassesTheAbaChecksum) {
  for (const auto mode : {model::Mode::test, model::Mode::live}) {
    const infra::collections::SimulatedCollectionProvider provider(mode);
    const auto json =
        parse(provider.instructions_json(*model::find_collection_method("ach"), "PRABCDEFGHJK"));
    EXPECT_EQ(keys_of(json),
              (std::set<std::string>{"type", "bank_name", "account_holder_name", "account_number",
                                     "routing_number", "reference"}));
    EXPECT_STREQ(json["type"].GetString(), "virtual_account");
    EXPECT_TRUE(model::account_checks::aba_routing_valid(json["routing_number"].GetString()));
    expect_valid_account("US", "USD",
                         std::string(R"({"type":"bank_account","routing_number":")") +
                             json["routing_number"].GetString() + R"(","account_number":")" +
                             json["account_number"].GetString() +
                             R"(","account_type":"checking"})");
  }
}

TEST(SimulatedProvider, EftVirtualAccountHasCanadianInstitutionAndTransit) {
  for (const auto mode : {model::Mode::test, model::Mode::live}) {
    const infra::collections::SimulatedCollectionProvider provider(mode);
    const auto json =
        parse(provider.instructions_json(*model::find_collection_method("eft"), "PRABCDEFGHJK"));
    EXPECT_EQ(keys_of(json),
              (std::set<std::string>{"type", "bank_name", "account_holder_name", "account_number",
                                     "institution_number", "transit_number", "reference"}));
    expect_valid_account("CA", "CAD",
                         std::string(R"({"type":"bank_account","institution_number":")") +
                             json["institution_number"].GetString() + R"(","transit_number":")" +
                             json["transit_number"].GetString() + R"(","account_number":")" +
                             json["account_number"].GetString() + R"("})");
  }
}

TEST(SimulatedProvider, NotificationsCarryAFreshProviderEventId) {
  const infra::collections::SimulatedCollectionProvider provider(model::Mode::test);
  using model::ProviderEventType;
  const auto first = provider.notification(ProviderEventType::payment_returned, "ach",
                                           "PRABCDEFGHJK", "10.00", "USD");
  const auto second = provider.notification(ProviderEventType::payment_returned, "ach",
                                            "PRABCDEFGHJK", "10.00", "USD");
  EXPECT_NE(first.provider_event_id, second.provider_event_id);
  EXPECT_EQ(first.provider, "simulated");
  EXPECT_EQ(first.mode, model::Mode::test);
  EXPECT_EQ(model::provider_event_type_name(first.type), "payment_returned");
  EXPECT_EQ(model::parse_provider_event_type("payment_failed"), ProviderEventType::payment_failed);
  EXPECT_FALSE(model::parse_provider_event_type("settled").has_value());
}

TEST(CollectionProviders, LiveNeedsAConfiguredProvider) {
  EXPECT_TRUE(infra::collections::is_known_provider(""));
  EXPECT_TRUE(infra::collections::is_known_provider("simulated"));
  EXPECT_FALSE(infra::collections::is_known_provider("acme"));
  const infra::collections::CollectionProviders none("");
  EXPECT_TRUE(none.for_mode(model::Mode::test).ok());
  const auto refused = none.for_mode(model::Mode::live);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, model::ErrorCode::provider_unavailable);
  const infra::collections::CollectionProviders staging("simulated");
  ASSERT_TRUE(staging.for_mode(model::Mode::live).ok());
  EXPECT_EQ((*staging.for_mode(model::Mode::live))->name(), "simulated");
}

model::Collection sample_collection() {
  model::Collection collection;
  collection.id = "col_1";
  collection.status = "settled";
  collection.amount = "100.00";
  collection.currency = "CAD";
  collection.method = "eft";
  collection.payment_instructions_json = R"({"type":"virtual_account","reference":"PR0000000000"})";
  collection.received_amount = "90.00";
  collection.settled_asset = "USDC";
  collection.settled_amount = "64.285714";
  collection.exchange_rate = "0.714285714286";
  collection.expires_at = "2026-11-24T10:00:00Z";
  collection.created_at = "2026-11-21T10:00:00Z";
  return collection;
}

TEST(CollectionRendering, FullObjectAndUnappliedPayments) {
  const auto collection = sample_collection();
  const auto json = parse(model::collection_json(collection));
  EXPECT_EQ(keys_of(json),
            (std::set<std::string>{"id", "object", "status", "mode", "amount", "currency", "method",
                                   "payment_instructions", "customer_reference", "received_amount",
                                   "settled_asset", "settled_amount", "exchange_rate", "expires_at",
                                   "created_at"}));
  EXPECT_STREQ(json["object"].GetString(), "collection");
  EXPECT_TRUE(json["customer_reference"].IsNull());
  EXPECT_STREQ(json["payment_instructions"]["reference"].GetString(), "PR0000000000");
  const std::vector<model::UnappliedPayment> late{
      {"5.00", "CAD", "2026-11-25T10:00:00Z", "late_payment"}};
  const auto with_late = parse(model::collection_json(collection, late));
  ASSERT_TRUE(with_late.HasMember("unapplied_payments"));
  EXPECT_STREQ(with_late["unapplied_payments"][0]["reason"].GetString(), "late_payment");
}

TEST(CollectionRendering, FailureReasonOnlyWhenFailed) {
  auto collection = sample_collection();
  collection.failure_reason = "payment_returned";
  EXPECT_FALSE(parse(model::collection_json(collection)).HasMember("failure_reason"));
  collection.status = "failed";
  EXPECT_STREQ(parse(model::collection_json(collection))["failure_reason"].GetString(),
               "payment_returned");
}

TEST(CollectionRendering, ListItemAndEventSnapshot) {
  const auto collection = sample_collection();
  rapidjson::StringBuffer buffer;
  model::json::Writer writer(buffer);
  model::write_collection_list_item(writer, collection);
  EXPECT_EQ(keys_of(parse(buffer.GetString())),
            (std::set<std::string>{"id", "object", "status", "mode", "amount", "currency", "method",
                                   "created_at"}));
  const auto event = parse(model::collection_event_json(collection, "collection.settled", "evt_1",
                                                        "2026-11-21T10:05:00Z", 3));
  EXPECT_STREQ(event["event"].GetString(), "collection.settled");
  EXPECT_EQ(event["sequence"].GetInt(), 3);
  EXPECT_STREQ(event["settled_asset"].GetString(), "USDC");
  EXPECT_STREQ(event["settled_amount"].GetString(), "64.285714");
  EXPECT_STREQ(event["received_amount"].GetString(), "90.00");
}

}  // namespace
}  // namespace payrail
