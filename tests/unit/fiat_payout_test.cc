// The fiat payout as the API renders it (responses, list items, event snapshots) and the payout
// partner simulator's test triggers.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "infra/adapters/partners/payout_partner.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/fiat_payouts/fiat_payout.h"

namespace payrail::model {
namespace {

// A valid CLABE that is not the catalog's published example (that one is public on purpose).
constexpr const char* kClabe = "002010077777777771";

FiatPayout sample(const std::string& status) {
  rapidjson::Document account;
  const auto text = std::string(R"({"type":"clabe","clabe":")") + kClabe + R"("})";
  account.Parse(text.c_str());
  const auto validated = validate_beneficiary_account("MX", "MXN", account);
  EXPECT_TRUE(validated.ok()) << (validated.ok() ? "" : validated.error().message);
  FiatPayout payout;
  payout.id = "fpo_5Rk8Wm2Qx7Np4Lz9Tb3Vc6Hy";
  payout.status = status;
  payout.amount = "1000.00";
  payout.currency = "MXN";
  payout.country = "MX";
  payout.beneficiary_name = "Maria Lopez";
  payout.account_masked_json = validated.ok() ? validated->masked_json() : "{}";
  payout.funding = {"54.200543", "18.45", "2025-12-01T00:00:00Z"};
  payout.screening_status = "clear";
  payout.created_at = "2026-11-21T10:00:00Z";
  return payout;
}

rapidjson::Document parse(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str());
  EXPECT_FALSE(document.HasParseError()) << text;
  return document;
}

TEST(FiatPayoutJson, ResponseShowsTheMaskedAccountFundingAndNullTracking) {
  const auto text = fiat_payout_json(sample("processing"));
  EXPECT_EQ(text.find(kClabe), std::string::npos) << text;
  const auto json = parse(text);
  EXPECT_STREQ(json["object"].GetString(), "fiat_payout");
  EXPECT_STREQ(json["beneficiary"]["name"].GetString(), "Maria Lopez");
  EXPECT_STREQ(json["beneficiary"]["account"]["type"].GetString(), "clabe");
  EXPECT_STREQ(json["beneficiary"]["account"]["clabe"].GetString(), "••••7771");
  EXPECT_STREQ(json["funding"]["currency"].GetString(), "USDC");
  EXPECT_STREQ(json["funding"]["amount"].GetString(), "54.200543");
  EXPECT_STREQ(json["funding"]["rate"].GetString(), "18.45");
  EXPECT_TRUE(json["tracking"].IsNull());
  EXPECT_FALSE(json.HasMember("failure_reason"));
  EXPECT_FALSE(json.HasMember("screening_result"));
}

TEST(FiatPayoutJson, FailedAndBlockedShowTheirDetails) {
  auto failed = sample("failed");
  failed.failure_reason = "returned_by_partner: account closed";
  failed.tracking = FiatTracking{"SIM-0123", "2026-11-21T10:30:00Z"};
  const auto json = parse(fiat_payout_json(failed));
  EXPECT_STREQ(json["failure_reason"].GetString(), "returned_by_partner: account closed");
  EXPECT_STREQ(json["tracking"]["reference"].GetString(), "SIM-0123");
  EXPECT_STREQ(json["tracking"]["estimated_settlement"].GetString(), "2026-11-21T10:30:00Z");
  auto blocked = sample("blocked");
  blocked.screening_status = "blocked";
  blocked.screening_reasons = {"ofac_sdn"};
  const auto blocked_json = parse(fiat_payout_json(blocked));
  EXPECT_STREQ(blocked_json["screening_result"]["reasons"][0].GetString(), "ofac_sdn");
}

TEST(FiatPayoutJson, ListItemsCarryExactlyTheContractFields) {
  rapidjson::StringBuffer buffer;
  json::Writer writer(buffer);
  write_fiat_payout_list_item(writer, sample("completed"));
  const auto item = parse(buffer.GetString());
  std::vector<std::string> members;
  for (auto member = item.MemberBegin(); member != item.MemberEnd(); ++member) {
    members.emplace_back(member->name.GetString());
  }
  EXPECT_EQ(members, (std::vector<std::string>{"id", "object", "status", "mode", "amount",
                                               "currency", "country", "created_at"}));
}

TEST(FiatPayoutJson, EventsCarryTheContractFieldsAndNoBeneficiary) {
  const auto text = fiat_payout_event_json(sample("completed"), "fiat_payout.completed", "evt_1",
                                           "2026-11-21T10:00:05Z", 2);
  EXPECT_EQ(text.find(kClabe), std::string::npos);
  EXPECT_EQ(text.find("Maria"), std::string::npos);
  const auto json = parse(text);
  for (const auto* member : {"event", "object", "id", "status", "amount", "currency", "country",
                             "mode", "created_at", "event_id", "occurred_at", "sequence"}) {
    EXPECT_TRUE(json.HasMember(member)) << member;
  }
  EXPECT_STREQ(json["event"].GetString(), "fiat_payout.completed");
  EXPECT_EQ(json["sequence"].GetInt(), 2);
  EXPECT_FALSE(json.HasMember("beneficiary"));
}

TEST(PayoutPartnerSimulator, FailSuffixIsReturnedOnlyWithTestTriggers) {
  infra::partners::PayoutPartners partners("simulated");
  infra::partners::PartnerPayout payout{"fpo_1", "MX", "MXN", "10.00", "Maria Lopez FAIL", "{}"};
  auto* test = partners.for_mode(Mode::test);
  auto* live = partners.for_mode(Mode::live);
  ASSERT_NE(test, nullptr);
  ASSERT_NE(live, nullptr);
  const auto sent = test->send(payout);
  ASSERT_TRUE(sent.ok());
  EXPECT_TRUE(sent->accepted);
  EXPECT_EQ(sent->partner_reference.rfind("SIM-", 0), 0u);
  EXPECT_EQ(test->send(payout)->partner_reference, sent->partner_reference) << "idempotent";
  EXPECT_EQ(test->result(payout, sent->partner_reference)->delivery,
            infra::partners::Delivery::returned);
  EXPECT_EQ(live->result(payout, sent->partner_reference)->delivery,
            infra::partners::Delivery::credited);
  payout.beneficiary_name = "Maria Lopez";
  EXPECT_EQ(test->result(payout, sent->partner_reference)->delivery,
            infra::partners::Delivery::credited);
}

TEST(PayoutPartnerSimulator, LiveNeedsAConfiguredPartner) {
  EXPECT_EQ(infra::partners::PayoutPartners("").for_mode(Mode::live), nullptr);
  EXPECT_NE(infra::partners::PayoutPartners("").for_mode(Mode::test), nullptr);
  EXPECT_TRUE(infra::partners::is_known_partner(""));
  EXPECT_TRUE(infra::partners::is_known_partner("simulated"));
  EXPECT_FALSE(infra::partners::is_known_partner("acme"));
}

}  // namespace
}  // namespace payrail::model
