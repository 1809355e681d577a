// Fiat payouts end to end over HTTP with every worker role running: every corridor with a valid
// account and with each check digit broken, every test-mode outcome (completed, failed with an
// exact refund, blocked by the suffix, by a real SDN name and by the blacklist), approvals,
// cancels, idempotency, limits, lists, isolation between organizations, scopes, and last a
// search of every response, event, table and process log of the run for the full account numbers.
// After each test the ledger must equal the balances.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <sstream>

#include "tests/support/fiat_payouts.h"
#include "tests/support/https_receiver.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

// A name on the shipped OFAC SDN list ("MADURO MOROS, Nicolas", an individual), written in
// another order, another case and with an accent.
constexpr const char* kSdnNameReordered = "nicolás MADURO moros";

class FiatPayouts : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    receiver_ = new HttpsReceiver();
    stack_ = new TestStack({.env = {{"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"},
                                    {"PAYRAIL_WEBHOOK_CA_FILE", receiver_->certificate_path()}}});
    responses_ = new std::vector<std::string>();
  }
  static void TearDownTestSuite() {
    delete responses_;
    delete stack_;
    delete receiver_;
  }
  void SetUp() override { org_ = stack_->create_organization(); }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  // Every response body of the run is kept for the privacy test at the end.
  static HttpResult recorded(HttpResult response) {
    responses_->push_back(response.body);
    return response;
  }
  HttpResult create(const std::string& body, const std::string& key = "") {
    return recorded(
        create_fiat_payout(stack_->http(), org_.test_key, key.empty() ? next_key() : key, body));
  }
  HttpResult get(const std::string& id) {
    return recorded(stack_->http().get("/v1/fiat-payouts/" + id, with_key(org_.test_key)));
  }
  HttpResult post(const std::string& path, const Headers& headers) {
    return recorded(stack_->http().post(path, "", headers));
  }
  HttpResult list(const std::string& query) {
    return recorded(stack_->http().get("/v1/fiat-payouts" + query, with_key(org_.test_key)));
  }
  std::string next_key() { return "fiat-" + std::to_string(counter_++); }
  std::string wait(const std::string& id, const std::set<std::string>& statuses) {
    return wait_for_fiat_status(stack_->http(), org_.test_key, id, statuses);
  }
  std::string usdc() { return balance_of(stack_->database(), org_.id, "test", "USDC"); }
  std::string scalar(const std::string& sql) { return stack_->database().scalar(sql); }
  static std::string id_of(const HttpResult& response) {
    const auto json = response.json();
    if (json.HasMember("id")) return json["id"].GetString();
    return json["error"]["fiat_payout_id"].GetString();
  }
  Headers owner() const { return {{"Authorization", "Bearer " + org_.session}}; }

  static TestStack* stack_;
  static HttpsReceiver* receiver_;
  static std::vector<std::string>* responses_;
  TestOrganization org_;
  int counter_ = 0;
};
TestStack* FiatPayouts::stack_ = nullptr;
HttpsReceiver* FiatPayouts::receiver_ = nullptr;
std::vector<std::string>* FiatPayouts::responses_ = nullptr;

TEST_F(FiatPayouts, EveryCorridorAcceptsAValidAccountMaskedAndCompletes) {
  std::vector<std::string> ids;
  for (const auto& account : account_cases()) {
    const auto response = create(fiat_payout_body("10.00", account, "Ana Souza"));
    ASSERT_EQ(response.status, 201)
        << account.country << " " << account.type << ": " << response.body;
    const auto json = response.json();
    EXPECT_STREQ(json["country"].GetString(), account.country.c_str());
    EXPECT_STREQ(json["currency"].GetString(), account.currency.c_str());
    const auto& shown = json["beneficiary"]["account"];
    EXPECT_STREQ(shown["type"].GetString(), account.type.c_str());
    for (const auto& [field, value] : account.fields) {
      const bool identifier = std::find(account.identifiers.begin(), account.identifiers.end(),
                                        field) != account.identifiers.end();
      const auto expected = identifier ? "••••" + value.substr(value.size() - 4) : value;
      EXPECT_EQ(shown[field.c_str()].GetString(), expected) << account.country << " " << field;
    }
    ids.push_back(json["id"].GetString());
  }
  for (const auto& id : ids) EXPECT_EQ(wait(id, {"completed"}), "completed") << id;
}

TEST_F(FiatPayouts, EachCheckDigitChangedIsRefusedNamingTheField) {
  int refused = 0;
  for (const auto& account : account_cases()) {
    for (const auto& field : account.check_digit_fields) {
      const auto response =
          create(fiat_payout_body("10.00", account.currency, account.country, "Ana Souza",
                                  account.account_json_with_digit_changed(field)));
      EXPECT_EQ(response.status, 422) << account.country << " " << field << ": " << response.body;
      EXPECT_EQ(response.error_code(), "unsupported_country");
      EXPECT_EQ(response.error_param(), "beneficiary.account." + field) << account.country;
      ++refused;
    }
  }
  EXPECT_EQ(refused, 11);
  EXPECT_EQ(scalar("SELECT count(*) FROM fiat_payouts WHERE org_id = '" + org_.id + "'"), "0");
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(FiatPayouts, CompletesSettlingTheExactUsdcWithTrackingAndEvents) {
  const auto response =
      create(fiat_payout_body("1000.00", mexico_case(), "Maria Lopez", R"({"order":"A-1"})"));
  ASSERT_EQ(response.status, 201) << response.body;
  const auto created = response.json();
  const std::string id = created["id"].GetString();
  EXPECT_EQ(id.rfind("fpo_", 0), 0u);
  EXPECT_STREQ(created["status"].GetString(), "processing");
  EXPECT_STREQ(created["screening_status"].GetString(), "clear");
  // 1000 MXN at 18.45 MXN per USDC: 54.2005420054... rounded up to 6 decimals.
  EXPECT_STREQ(created["funding"]["amount"].GetString(), "54.200543");
  EXPECT_STREQ(created["funding"]["rate"].GetString(), "18.45");
  EXPECT_STREQ(created["metadata"]["order"].GetString(), "A-1");
  ASSERT_EQ(wait(id, {"completed"}), "completed");
  const auto done = get(id).json();
  EXPECT_EQ(std::string(done["tracking"]["reference"].GetString()).rfind("SIM-", 0), 0u);
  // The corridor's typical settlement time (SPEI: 30 minutes) after the partner accepted it.
  EXPECT_EQ(
      scalar("SELECT estimated_settlement_at - sent_at FROM fiat_payouts WHERE id = '" + id + "'"),
      "00:30:00");
  EXPECT_EQ(usdc(), "999945.799457/0");
  EXPECT_EQ(scalar("SELECT string_agg(e.kind || ':' || p.account, ',' ORDER BY e.id, p.account) "
                   "FROM journal_entries e JOIN journal_postings p ON p.entry_id = e.id "
                   "WHERE e.resource_id = '" +
                   id + "' AND p.amount > 0"),
            "hold:held,settle:fiat_payouts_sent");
  EXPECT_EQ(scalar("SELECT string_agg(type || '#' || sequence, ',' ORDER BY sequence) FROM events "
                   "WHERE resource_id = '" +
                   id + "'"),
            "fiat_payout.processing#1,fiat_payout.completed#2");
  const auto events = recorded(
      stack_->http().get("/v1/events?type=fiat_payout.completed", with_key(org_.test_key)));
  ASSERT_EQ(events.status, 200) << events.body;
  EXPECT_EQ(events.json()["data"].Size(), 1u);
  EXPECT_EQ(scalar("SELECT string_agg(to_status, ',' ORDER BY id) FROM resource_transitions "
                   "WHERE resource_id = '" +
                   id + "'"),
            "pending,screening,processing,completed");
}

// Through the existing webhook path: signed deliveries of the exact event rows, in sequence order.
TEST_F(FiatPayouts, EventsAreDeliveredSignedToSubscribedEndpoints) {
  const auto endpoint = recorded(
      stack_->http().post("/v1/webhooks",
                          R"({"url":")" + receiver_->url("/fiat") +
                              R"(","events":["fiat_payout.processing","fiat_payout.completed"]})",
                          with_key(org_.test_key)));
  ASSERT_EQ(endpoint.status, 201) << endpoint.body;
  const std::string secret = endpoint.json()["secret"].GetString();
  const auto response = create(fiat_payout_body("100.00", account_cases()[3], "Chloe Martin"));
  ASSERT_EQ(response.status, 201) << response.body;
  ASSERT_TRUE(receiver_->wait_for_requests(2, std::chrono::seconds(30), "/fiat"));
  std::map<int, std::string> events_by_sequence;
  for (const auto& request : receiver_->requests_for("/fiat")) {
    responses_->push_back(request.body);
    const auto now_s =
        std::chrono::duration_cast<std::chrono::seconds>(request.received_at.time_since_epoch())
            .count();
    EXPECT_TRUE(
        verify_webhook_signature(request.header("service-signature"), secret, request.body, now_s));
    EXPECT_EQ(request.body, scalar("SELECT payload FROM events WHERE id = '" +
                                   request.header("service-event-id") + "'"));
    rapidjson::Document payload;
    payload.Parse(request.body.c_str());
    ASSERT_TRUE(payload.IsObject());
    EXPECT_EQ(id_of(response), payload["id"].GetString());
    EXPECT_STREQ(payload["object"].GetString(), "fiat_payout");
    EXPECT_STREQ(payload["country"].GetString(), "CA");
    EXPECT_FALSE(payload.HasMember("beneficiary"));
    events_by_sequence[payload["sequence"].GetInt()] = payload["event"].GetString();
  }
  EXPECT_EQ(events_by_sequence, (std::map<int, std::string>{{1, "fiat_payout.processing"},
                                                            {2, "fiat_payout.completed"}}));
}

TEST_F(FiatPayouts, PartnerReturnFailsAndRefundsExactly) {
  const auto before = usdc();
  const auto response = create(fiat_payout_body("777.77", account_cases()[5], "Jonas Weber FAIL"));
  ASSERT_EQ(response.status, 201) << response.body;
  const auto id = id_of(response);
  ASSERT_EQ(wait(id, {"failed"}), "failed");
  const auto failed = get(id).json();
  EXPECT_EQ(std::string(failed["failure_reason"].GetString()).rfind("returned_by_partner", 0), 0u);
  EXPECT_EQ(usdc(), before);
  EXPECT_EQ(before, "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "fiat_payout.failed"), 1);
  EXPECT_EQ(event_count(stack_->database(), id, "fiat_payout.completed"), 0);
  EXPECT_EQ(scalar("SELECT string_agg(kind, ',' ORDER BY id) FROM journal_entries WHERE "
                   "resource_id = '" +
                   id + "'"),
            "hold,refund");
}

void expect_blocked(const HttpResult& response) {
  ASSERT_EQ(response.status, 403) << response.body;
  EXPECT_EQ(response.error_code(), "screening_blocked");
  EXPECT_EQ(std::string(response.json()["error"]["fiat_payout_id"].GetString()).rfind("fpo_", 0),
            0u);
}

TEST_F(FiatPayouts, BlockedBySuffixAndNothingMoves) {
  const auto response = create(fiat_payout_body("50.00", mexico_case(), "Maria Lopez BLOCKED"));
  expect_blocked(response);
  const auto id = id_of(response);
  const auto payout = get(id).json();
  EXPECT_STREQ(payout["status"].GetString(), "blocked");
  EXPECT_STREQ(payout["screening_result"]["reasons"][0].GetString(), "internal_blacklist");
  EXPECT_TRUE(payout["tracking"].IsNull());
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "fiat_payout.blocked"), 1);
  EXPECT_EQ(event_count(stack_->database(), id, "fiat_payout.processing"), 0);
  EXPECT_NE(scalar("SELECT screening_list_version FROM fiat_payouts WHERE id = '" + id + "'"), "");
}

TEST_F(FiatPayouts, BlockedByARealSdnNameInAnotherOrderAndCase) {
  const auto response = create(fiat_payout_body("50.00", account_cases()[8], kSdnNameReordered));
  expect_blocked(response);
  const auto payout = get(id_of(response)).json();
  ASSERT_EQ(payout["screening_result"]["reasons"].Size(), 1u);
  EXPECT_STREQ(payout["screening_result"]["reasons"][0].GetString(), "ofac_sdn");
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(FiatPayouts, BlockedByTheInternalBlacklistByName) {
  const auto [code, output] =
      stack_->cli({"blacklist-add", "--name", "LOPEZ, Ximena", "--reason", "test"});
  ASSERT_EQ(code, 0) << output;
  const auto response = create(fiat_payout_body("50.00", mexico_case(), "Ximena López"));
  expect_blocked(response);
  EXPECT_STREQ(get(id_of(response)).json()["screening_result"]["reasons"][0].GetString(),
               "internal_blacklist");
  // A blocked beneficiary stays blocked on retry with a new key.
  expect_blocked(create(fiat_payout_body("50.00", mexico_case(), "ximena lopez")));
}

TEST_F(FiatPayouts, AboveAutoApprovalWaitsThenMemberApprovalCompletes) {
  // 250,000 MXN is 13,550.14 USD: above the 10,000 USD test-mode auto-approval limit.
  const auto response = create(fiat_payout_body("250000.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(response.status, 202) << response.body;
  const auto id = id_of(response);
  EXPECT_STREQ(response.json()["status"].GetString(), "pending_approval");
  EXPECT_EQ(usdc(), "986449.864498/13550.135502");
  const auto path = "/v1/fiat-payouts/" + id + "/approve";
  EXPECT_EQ(post(path, with_key(org_.test_key)).error_code(), "session_required");
  const auto stranger = stack_->dev_session("stranger@example.com");
  EXPECT_EQ(post(path, {{"Authorization", "Bearer " + stranger}}).status, 404);
  const auto approved = post(path, owner());
  ASSERT_EQ(approved.status, 200) << approved.body;
  EXPECT_STREQ(approved.json()["status"].GetString(), "processing");
  EXPECT_EQ(wait(id, {"completed"}), "completed");
  EXPECT_EQ(post(path, owner()).error_code(), "payout_not_approvable");
  EXPECT_EQ(usdc(), "986449.864498/0");
  EXPECT_EQ(scalar("SELECT actor FROM resource_transitions WHERE resource_id = '" + id +
                   "' AND trigger = 'approve'"),
            scalar("SELECT owner_subject FROM organizations WHERE id = '" + org_.id + "'"));
}

TEST_F(FiatPayouts, RejectReleasesTheHold) {
  const auto response = create(fiat_payout_body("250000.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(response.status, 202);
  const auto id = id_of(response);
  const auto rejected = post("/v1/fiat-payouts/" + id + "/reject", owner());
  ASSERT_EQ(rejected.status, 200) << rejected.body;
  EXPECT_STREQ(rejected.json()["status"].GetString(), "cancelled");
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(event_count(stack_->database(), id, "fiat_payout.cancelled"), 1);
  EXPECT_EQ(post("/v1/fiat-payouts/" + id + "/reject", owner()).error_code(),
            "payout_not_approvable");
}

TEST_F(FiatPayouts, CancelBeforeProcessingOnceAndNeverAfter) {
  const auto held = create(fiat_payout_body("250000.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(held.status, 202);
  const auto cancel = "/v1/fiat-payouts/" + id_of(held) + "/cancel";
  const auto cancelled = post(cancel, with_key(org_.test_key));
  ASSERT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_STREQ(cancelled.json()["status"].GetString(), "cancelled");
  EXPECT_EQ(usdc(), "1000000/0");
  const auto again = post(cancel, with_key(org_.test_key));
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.error_code(), "payout_not_cancelable");
  EXPECT_EQ(event_count(stack_->database(), id_of(held), "fiat_payout.cancelled"), 1);
  // Once sent to the partner it can no longer be cancelled: the refusal comes in processing and
  // after completion alike.
  const auto sent = create(fiat_payout_body("20.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(sent.status, 201);
  const auto in_processing =
      post("/v1/fiat-payouts/" + id_of(sent) + "/cancel", with_key(org_.test_key));
  EXPECT_EQ(in_processing.error_code(), "payout_not_cancelable") << in_processing.body;
  ASSERT_EQ(wait(id_of(sent), {"completed"}), "completed");
  EXPECT_EQ(
      post("/v1/fiat-payouts/" + id_of(sent) + "/cancel", with_key(org_.test_key)).error_code(),
      "payout_not_cancelable");
  EXPECT_EQ(post("/v1/fiat-payouts/fpo_unknown/cancel", with_key(org_.test_key)).error_code(),
            "resource_missing");
}

TEST_F(FiatPayouts, IdempotentReplayAndConflict) {
  const auto body = fiat_payout_body("15.00", mexico_case(), "Maria Lopez");
  const auto first = create(body, "order-1");
  ASSERT_EQ(first.status, 201);
  const auto replay = create(body, "order-1");
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.body, first.body);
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  // The same request with another account number is a different request.
  const auto other_account = fiat_payout_body("15.00", "MXN", "MX", "Maria Lopez",
                                              R"({"type":"clabe","clabe":"002010077777777771"})");
  const auto conflict = create(other_account, "order-1");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.error_code(), "idempotency_conflict");
  const auto blocked_body = fiat_payout_body("5.00", mexico_case(), "Maria Lopez BLOCKED");
  const auto blocked = create(blocked_body, "order-blocked");
  ASSERT_EQ(blocked.status, 403);
  const auto blocked_replay = create(blocked_body, "order-blocked");
  EXPECT_EQ(blocked_replay.body, blocked.body);
  EXPECT_EQ(scalar("SELECT count(*) FROM fiat_payouts WHERE org_id = '" + org_.id + "'"), "2");
  wait(id_of(first), {"completed"});
}

TEST_F(FiatPayouts, ValidationErrorsNameTheField) {
  struct Case {
    std::string body;
    int status;
    std::string code;
    std::string param;
  };
  const auto& mx = mexico_case();
  const auto clabe = mx.account_json();
  const std::vector<Case> cases{
      {fiat_payout_body("1.00", "JPY", "JP", "A B", clabe), 422, "unsupported_country", "country"},
      {fiat_payout_body("1.00", "USD", "MX", "A B", clabe), 422, "unsupported_country", "currency"},
      {fiat_payout_body("1.00", "MXN", "MX", "A B", R"({"type":"iban","iban":"x"})"), 422,
       "unsupported_country", "beneficiary.account.type"},
      {fiat_payout_body("1.00", "MXN", "MX", "A B", R"({"type":"clabe"})"), 422,
       "unsupported_country", "beneficiary.account.clabe"},
      {fiat_payout_body("1.00", "MXN", "MX", "A B",
                        R"({"type":"clabe","clabe":"012180001234567899","bank":"x"})"),
       422, "unsupported_country", "beneficiary.account.bank"},
      {fiat_payout_body("1.00", "MXN", "MX", "A B", R"("012180001234567899")"), 422,
       "unsupported_country", "beneficiary.account"},
      {fiat_payout_body("1.001", mx, "A B"), 400, "bad_request", "amount"},
      {fiat_payout_body("0", mx, "A B"), 400, "bad_request", "amount"},
      {fiat_payout_body("1.00", mx, std::string(141, 'a')), 400, "bad_request", "beneficiary.name"},
      {fiat_payout_body("1.00", mx, ""), 400, "bad_request", "beneficiary.name"},
      {R"({"amount":"1.00","currency":"MXN","country":"MX","beneficiary":{"name":"A B"}})", 400,
       "bad_request", "beneficiary.account"},
      {R"({"amount":"1.00","currency":"MXN","country":"MX"})", 400, "bad_request", "beneficiary"},
      {fiat_payout_body("1.00", mx, "A B", R"({"k":1})"), 400, "bad_request", "metadata.k"},
  };
  for (const auto& c : cases) {
    const auto response = create(c.body);
    EXPECT_EQ(response.status, c.status) << c.body << " -> " << response.body;
    EXPECT_EQ(response.error_code(), c.code) << c.body;
    EXPECT_EQ(response.error_param(), c.param) << c.body;
  }
  const auto no_key = recorded(stack_->http().post(
      "/v1/fiat-payouts", fiat_payout_body("1.00", mx, "A B"), with_key(org_.test_key)));
  EXPECT_EQ(no_key.status, 400);
  EXPECT_EQ(no_key.error_param(), "Idempotency-Key");
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(FiatPayouts, LimitsAndBalanceRefusalsShareTheUsdCounters) {
  // 2,000,000 MXN is 108,401.08 USD: over the 100,000 USD per-payout limit.
  const auto over = create(fiat_payout_body("2000000.00", mexico_case(), "Maria Lopez"));
  EXPECT_EQ(over.status, 403);
  EXPECT_EQ(over.error_code(), "limit_exceeded");
  ASSERT_EQ(stack_
                ->cli({"limits", "--org", org_.id, "--mode", "test", "--per-payout-usd", "5000000",
                       "--daily-usd", "5000000", "--auto-approval-usd", "5000000"})
                .first,
            0);
  // 20,000,000 MXN needs 1,084,010.84 USDC: more than the sandbox's 1,000,000.
  const auto short_balance = create(fiat_payout_body("20000000.00", mexico_case(), "Maria Lopez"));
  EXPECT_EQ(short_balance.status, 402);
  EXPECT_EQ(short_balance.error_code(), "insufficient_balance");
  // One daily counter for stablecoin and fiat payouts: 30 USDC, then 20 USD of EUR do not fit 40.
  ASSERT_EQ(stack_->cli({"limits", "--org", org_.id, "--mode", "test", "--daily-usd", "40"}).first,
            0);
  const auto stablecoin = create_payout(stack_->http(), org_.test_key, next_key(),
                                        payout_body("30", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(stablecoin.status, 201) << stablecoin.body;
  const auto fiat = create(fiat_payout_body("17.25", account_cases()[5], "Jonas Weber"));
  EXPECT_EQ(fiat.status, 403) << fiat.body;
  EXPECT_EQ(fiat.error_code(), "limit_exceeded");
  // A fiat payout that ends without moving money gives its amount back.
  const auto failing = create(fiat_payout_body("8.00", account_cases()[5], "Jonas Weber FAIL"));
  ASSERT_EQ(failing.status, 201) << failing.body;
  ASSERT_EQ(wait(id_of(failing), {"failed"}), "failed");
  EXPECT_EQ(create(fiat_payout_body("8.00", account_cases()[5], "Jonas Weber")).status, 201);
  EXPECT_EQ(scalar("SELECT trim_scale(amount_usd) FROM spend_counters WHERE org_id = '" + org_.id +
                   "' AND period = 'day'"),
            "39.28");
  wait_for_status(stack_->http(), org_.test_key, stablecoin.json()["id"].GetString(),
                  {"completed"});
}

TEST_F(FiatPayouts, ListFiltersPaginatesAndShowsOnlyTheListFields) {
  const auto mx = create(fiat_payout_body("10.00", mexico_case(), "Maria Lopez"));
  const auto de = create(fiat_payout_body("10.00", account_cases()[5], "Jonas Weber"));
  const auto held = create(fiat_payout_body("250000.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(held.status, 202);
  ASSERT_EQ(wait(id_of(mx), {"completed"}), "completed");
  ASSERT_EQ(wait(id_of(de), {"completed"}), "completed");
  const auto by_country = list("?country=DE");
  ASSERT_EQ(by_country.status, 200) << by_country.body;
  auto json = by_country.json();
  ASSERT_EQ(json["data"].Size(), 1u);
  EXPECT_EQ(id_of(de), json["data"][0]["id"].GetString());
  std::vector<std::string> members;
  for (auto m = json["data"][0].MemberBegin(); m != json["data"][0].MemberEnd(); ++m) {
    members.emplace_back(m->name.GetString());
  }
  EXPECT_EQ(members, (std::vector<std::string>{"id", "object", "status", "mode", "amount",
                                               "currency", "country", "created_at"}));
  const auto mx_held = list("?country=MX&status=pending_approval").json();
  ASSERT_EQ(mx_held["data"].Size(), 1u);
  EXPECT_EQ(id_of(held), mx_held["data"][0]["id"].GetString());
  const auto first_page = list("?limit=2").json();
  ASSERT_EQ(first_page["data"].Size(), 2u);
  ASSERT_TRUE(first_page["has_more"].GetBool());
  const auto second_page =
      list(std::string("?limit=2&starting_after=") + first_page["next_cursor"].GetString()).json();
  ASSERT_EQ(second_page["data"].Size(), 1u);
  EXPECT_FALSE(second_page["has_more"].GetBool());
  EXPECT_EQ(list("?created_gte=2999-01-01T00:00:00Z").json()["data"].Size(), 0u);
  EXPECT_EQ(list("?status=approved").error_param(), "status");
  EXPECT_EQ(list("?country=mx").error_param(), "country");
  EXPECT_EQ(list("?starting_after=fpo_unknown").error_param(), "starting_after");
  post("/v1/fiat-payouts/" + id_of(held) + "/cancel", with_key(org_.test_key));
}

TEST_F(FiatPayouts, AnotherOrganizationSeesNothing) {
  const auto mine = create(fiat_payout_body("10.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(mine.status, 201);
  const auto held = create(fiat_payout_body("250000.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(held.status, 202);
  const auto other = stack_->create_organization();
  const auto& http = stack_->http();
  EXPECT_EQ(recorded(http.get("/v1/fiat-payouts/" + id_of(mine), with_key(other.test_key))).status,
            404);
  EXPECT_EQ(recorded(http.get("/v1/fiat-payouts", with_key(other.test_key))).json()["data"].Size(),
            0u);
  EXPECT_EQ(recorded(http.post("/v1/fiat-payouts/" + id_of(held) + "/cancel", "",
                               with_key(other.test_key)))
                .status,
            404);
  // Another organization's owner is not a member: its session cannot decide.
  EXPECT_EQ(recorded(http.post("/v1/fiat-payouts/" + id_of(held) + "/approve", "",
                               {{"Authorization", "Bearer " + other.session}}))
                .status,
            404);
  EXPECT_EQ(
      recorded(http.get("/v1/fiat-payouts?starting_after=" + id_of(mine), with_key(other.test_key)))
          .error_param(),
      "starting_after");
  post("/v1/fiat-payouts/" + id_of(held) + "/cancel", with_key(org_.test_key));
  wait(id_of(mine), {"completed"});
}

TEST_F(FiatPayouts, ScopesGuardEveryRoute) {
  const auto make_key = [&](const std::string& scope) {
    const auto response = recorded(
        stack_->http().post("/v1/api-keys", R"({"mode":"test","scopes":[")" + scope + R"("]})",
                            with_key(org_.test_key)));
    return std::string(response.json()["key"].GetString());
  };
  const auto reader = make_key("payouts:read");
  const auto writer = make_key("payouts:write");
  const auto created = create_fiat_payout(stack_->http(), writer, next_key(),
                                          fiat_payout_body("10.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(created.status, 201) << created.body;
  const auto id = id_of(created);
  const auto refused = create_fiat_payout(stack_->http(), reader, next_key(),
                                          fiat_payout_body("10.00", mexico_case(), "Maria Lopez"));
  EXPECT_EQ(refused.error_code(), "scope_insufficient");
  EXPECT_EQ(
      stack_->http().post("/v1/fiat-payouts/" + id + "/cancel", "", with_key(reader)).error_code(),
      "scope_insufficient");
  EXPECT_EQ(stack_->http().get("/v1/fiat-payouts/" + id, with_key(writer)).error_code(),
            "scope_insufficient");
  EXPECT_EQ(stack_->http().get("/v1/fiat-payouts", with_key(writer)).error_code(),
            "scope_insufficient");
  EXPECT_EQ(stack_->http().get("/v1/fiat-payouts/" + id, with_key(reader)).status, 200);
  wait_for_fiat_status(stack_->http(), reader, id, {"completed"});
}

// Runs last: every account identifier this run sent (valid or not) must appear in no response
// body, no event payload, no row of any table (as text or as the bytes of a bytea) and no line of
// any process's log. Names of the run's beneficiaries must not appear in any log either.
TEST_F(FiatPayouts, ZzNoFullAccountNumberInAnyResponseEventTableOrLog) {
  std::set<std::string> secrets;
  for (const auto& account : account_cases()) {
    for (const auto& field : account.identifiers) secrets.insert(account.value_of(field));
  }
  secrets.insert("002010077777777771");
  // The broken variants sent by EachCheckDigitChangedIsRefusedNamingTheField.
  for (const auto& account : account_cases()) {
    for (const auto& field : account.check_digit_fields) {
      auto value = account.value_of(field);
      value.back() = static_cast<char>('0' + (value.back() - '0' + 1) % 10);
      secrets.insert(value);
    }
  }
  ASSERT_GT(responses_->size(), 50u);
  const auto& db = stack_->database();
  ASSERT_GT(std::stoi(db.scalar("SELECT count(*) FROM fiat_payouts")), 20);
  // Every row of every table as text (bytea columns appear as hex), one text per table.
  std::vector<std::pair<std::string, std::string>> tables;
  std::stringstream names(
      db.scalar("SELECT string_agg(table_name, ',') FROM information_schema.tables "
                "WHERE table_schema = 'public' AND table_type = 'BASE TABLE'"));
  for (std::string table; std::getline(names, table, ',');) {
    tables.emplace_back(
        table, db.scalar("SELECT coalesce(string_agg(t::text, E'\\n'), '') FROM " + table + " t"));
  }
  std::vector<std::string> logs;
  for (const auto* role :
       {"api", "broker", "screening", "execution", "settlement", "expiry", "webhooks"}) {
    logs.push_back(stack_->process(role).log());
  }
  const auto in = [](const std::string& haystack, const std::string& needle) {
    return haystack.find(needle) != std::string::npos;
  };
  const auto hex = [](const std::string& text) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out;
    for (const unsigned char c : text) {
      out += kDigits[c >> 4];
      out += kDigits[c & 15];
    }
    return out;
  };
  // The search itself works: a routing number (not an identifier, shown in full) is found.
  const auto routing = account_cases().back().value_of("routing_number");
  EXPECT_TRUE(std::any_of(responses_->begin(), responses_->end(),
                          [&](const std::string& body) { return in(body, routing); }));
  EXPECT_TRUE(std::any_of(tables.begin(), tables.end(),
                          [&](const auto& table) { return in(table.second, routing); }));
  EXPECT_TRUE(in(logs[2], "\"fiat_payout_id\":\"fpo_")) << "the screening log was not read";
  for (const auto& secret : secrets) {
    for (const auto& body : *responses_) {
      ASSERT_FALSE(in(body, secret)) << secret << " in a response: " << body;
    }
    for (const auto& [table, text] : tables) {
      EXPECT_FALSE(in(text, secret) || in(text, hex(secret))) << secret << " in table " << table;
    }
    for (const auto& log : logs) EXPECT_FALSE(in(log, secret)) << secret << " in a log";
  }
  for (const auto* name :
       {"Maria Lopez", "Jonas Weber", "Ana Souza", "Chloe Martin", "Ximena", "MADURO"}) {
    for (const auto& log : logs) EXPECT_EQ(log.find(name), std::string::npos) << name;
  }
}

}  // namespace
}  // namespace payrail::testing
