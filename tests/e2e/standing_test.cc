// An organization's standing applies to its members' sessions as to its API keys: every route an
// identity-provider session can call for an organization (read from the server's route table, so
// a new one cannot be forgotten) answers 403 org_suspended while it is suspended or closed.
// Suspension keeps held payouts held, and reinstatement lets members decide them again; closing
// cancels what has not been sent (payouts and fiat payouts before processing, collections still
// waiting without a payment) in the close's transaction, releasing every hold once, with the
// operator in the audit log, in test and live mode alike, while a payment that arrived before the
// close is still received.
// After each test the ledger must equal the balances.
#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <set>
#include <vector>

#include "api/handlers/handlers.h"
#include "tests/support/collections.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr const char* kOperator = "ops-dana";
// Session routes that act for no existing organization: creating one needs no standing.
const std::set<std::string> kNotForAnOrganization{"POST /v1/organizations"};

class Standing : public ::testing::Test {
 protected:
  // Screening holds payouts above the auto-approval limit; settlement applies collection
  // payments. Neither execution nor the partner is needed: an approved payout stays processing.
  // Live mode is staged as in the collections tests: the simulated collection provider and
  // chain adapter, and the reference rates as the live rate source.
  static void SetUpTestSuite() {
    stack_ = new TestStack({.workers = {"screening", "settlement"},
                            .env = {{"PAYRAIL_COLLECTION_PROVIDER", "simulated"},
                                    {"PAYRAIL_CHAIN_ADAPTER", "simulated"},
                                    {"PAYRAIL_RATE_SOURCE", "reference"}}});
  }
  static void TearDownTestSuite() { delete stack_; }
  void SetUp() override {
    org_ = stack_->create_organization();
    const auto [code, output] =
        stack_->cli({"limits", "--org", org_.id, "--mode", "test", "--auto-approval-usd", "100"});
    ASSERT_EQ(code, 0) << output;
  }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(db()), ""); }

  static const HttpClient& http() { return stack_->http(); }
  static const TestDatabase& db() { return stack_->database(); }

  Headers owner() const { return with_session(org_.session); }
  Headers owner_for_organization() const {
    return with_session(org_.session, {{"Payrail-Organization", org_.id}});
  }
  std::string next_key() { return "standing-" + std::to_string(counter_++); }
  // A stablecoin payout above the auto-approval limit: screening holds it for a member.
  std::string held_payout(const std::string& key = "") {
    const auto& api_key = key.empty() ? org_.test_key : key;
    const auto response = create_payout(
        http(), api_key, next_key(), payout_body("150", "USDC", "polygon", random_evm_address()));
    EXPECT_TRUE(response.status == 201 || response.status == 202) << response.body;
    const std::string id = response.json()["id"].GetString();
    EXPECT_EQ(wait_for_status(http(), api_key, id, {"pending_approval"}), "pending_approval");
    return id;
  }
  // A verified business's live key, its live balance funded by a settled live collection
  // (1,400 CAD: 1,000 USDC at the reference rate), live payouts above 100 USD held too.
  std::string funded_live_key() {
    stack_->verify_business(org_);
    const auto minted = http().post("/v1/api-keys", R"({"mode":"live"})", owner_for_organization());
    EXPECT_TRUE(has_status(minted, 201));
    const std::string key = minted.json()["key"].GetString();
    for (const auto& command :
         {std::vector<std::string>{"rail-enable", "--org", org_.id, "--method", "eft", "--operator",
                                   kOperator},
          std::vector<std::string>{"limits", "--org", org_.id, "--mode", "live",
                                   "--auto-approval-usd", "100"}}) {
      const auto [code, output] = stack_->cli(command);
      EXPECT_EQ(code, 0) << output;
    }
    const auto collection = live_collection(key, "1400.00");
    const auto [code, output] = stack_->cli(
        {"collection-provider-event", "--provider", "simulated", "--event-id", "live-" + collection,
         "--type", "payment_received", "--mode", "live", "--method", "eft", "--reference",
         db().scalar("SELECT reference FROM collections WHERE id = '" + collection + "'"),
         "--amount", "1400.00", "--currency", "CAD", "--operator", kOperator});
    EXPECT_EQ(code, 0) << output;
    EXPECT_EQ(wait_for_collection(http(), key, collection, {"settled"}), "settled");
    EXPECT_EQ(balance_of(db(), org_.id, "live", "USDC"), "1000/0");
    return key;
  }
  std::string live_collection(const std::string& key, const std::string& amount) {
    const auto response =
        create_collection(http(), key, next_key(), collection_body(amount, "CAD", "eft"));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["id"].GetString();
  }
  // 5,000 MXN is about 270 USD: above the limit, held too.
  std::string held_fiat_payout() {
    const auto id = create_fiat(fiat_payout_body("5000.00", mexico_case(), "Ana Lopez"));
    EXPECT_EQ(wait_for_fiat_status(http(), org_.test_key, id, {"pending_approval"}),
              "pending_approval");
    return id;
  }
  std::string create_fiat(const std::string& body) {
    const auto response = create_fiat_payout(http(), org_.test_key, next_key(), body);
    EXPECT_TRUE(response.status == 201 || response.status == 202) << response.body;
    return response.json()["id"].GetString();
  }
  std::string status_of(const std::string& table, const std::string& id) {
    return db().scalar("SELECT status FROM " + table + " WHERE id = '" + id + "'");
  }
  std::string usdc() { return balance_of(db(), org_.id, "test", "USDC"); }
  std::pair<int, std::string> operator_command(const std::string& command) {
    return stack_->cli({command, "--org", org_.id, "--operator", kOperator, "--reason", "review"});
  }

  // One request per session route, for this organization; the decisions name `payout` and
  // `fiat_payout`. A session route missing here fails the test: give it a case.
  std::map<std::string, std::function<HttpResult()>> session_requests(
      const std::string& payout, const std::string& fiat_payout) {
    return {
        {"POST /v1/api-keys",
         [=, this] {
           return http().post("/v1/api-keys", R"({"mode":"test"})", owner_for_organization());
         }},
        {"POST /v1/kyb",
         [=, this] {
           return http().post("/v1/kyb", kyb_submission_body(), owner_for_organization());
         }},
        {"POST /v1/payouts/{id}/approve",
         [=, this] { return http().post("/v1/payouts/" + payout + "/approve", "", owner()); }},
        {"POST /v1/payouts/{id}/reject",
         [=, this] { return http().post("/v1/payouts/" + payout + "/reject", "", owner()); }},
        {"POST /v1/fiat-payouts/{id}/approve",
         [=, this] {
           return http().post("/v1/fiat-payouts/" + fiat_payout + "/approve", "", owner());
         }},
        {"POST /v1/fiat-payouts/{id}/reject",
         [=, this] {
           return http().post("/v1/fiat-payouts/" + fiat_payout + "/reject", "", owner());
         }},
    };
  }
  // Every session route of the server's route table, refused with 403 org_suspended.
  void expect_every_session_route_refused(const std::string& payout,
                                          const std::string& fiat_payout) {
    const auto requests = session_requests(payout, fiat_payout);
    int refused = 0;
    const auto router = api::build_router();
    for (const auto& route : router.routes()) {
      if (route.access != api::Access::session && route.access != api::Access::api_key_or_session) {
        continue;
      }
      const auto name = route.method + " " + route.pattern;
      if (kNotForAnOrganization.contains(name)) continue;
      const auto request = requests.find(name);
      if (request == requests.end()) {
        ADD_FAILURE() << "no standing case for the session route " << name;
        continue;
      }
      EXPECT_TRUE(is_error(request->second(), 403, "org_suspended")) << name;
      ++refused;
    }
    EXPECT_EQ(refused, static_cast<int>(requests.size()));
  }

  inline static TestStack* stack_ = nullptr;
  TestOrganization org_;
  int counter_ = 0;
};

TEST_F(Standing, SuspensionRefusesEverySessionRouteAndKeepsHeldPayoutsForReinstatement) {
  const auto payout = held_payout();
  const auto fiat_payout = held_fiat_payout();
  const auto held = usdc();
  ASSERT_EQ(operator_command("org-suspend").first, 0);

  expect_every_session_route_refused(payout, fiat_payout);
  // Nothing was decided: both still wait, their funds still held.
  EXPECT_EQ(status_of("payouts", payout), "pending_approval");
  EXPECT_EQ(status_of("fiat_payouts", fiat_payout), "pending_approval");
  EXPECT_EQ(usdc(), held);
  EXPECT_EQ(event_count(db(), payout, "payout.processing"), 0);
  EXPECT_EQ(event_count(db(), payout, "payout.cancelled"), 0);
  // Creating another organization is not acting for this one.
  EXPECT_TRUE(has_status(
      http().post("/v1/organizations",
                  R"({"legal_name":"Other Ltd","display_name":"Other","country":"CA"})", owner()),
      201));

  ASSERT_EQ(operator_command("org-reinstate").first, 0);
  const auto approved = http().post("/v1/payouts/" + payout + "/approve", "", owner());
  ASSERT_TRUE(has_status(approved, 200));
  EXPECT_STREQ(approved.json()["status"].GetString(), "processing");
  const auto rejected = http().post("/v1/fiat-payouts/" + fiat_payout + "/reject", "", owner());
  ASSERT_TRUE(has_status(rejected, 200));
  EXPECT_STREQ(rejected.json()["status"].GetString(), "cancelled");
  EXPECT_EQ(event_count(db(), fiat_payout, "fiat_payout.cancelled"), 1);
}

// Closing cancels, in its own transaction, every payout and fiat payout not yet sent (held for
// approval, or still before screening's decision) and every collection still waiting without a
// payment; each hold is released once, each cancel has its event and names the operator. A
// payment recorded before the close is still received and settled. Workers that pick up a
// cancelled payout afterwards leave it cancelled.
TEST_F(Standing, ClosingCancelsWhatWasNotSentAndReleasesEveryHold) {
  const auto live = funded_live_key();
  const auto held_live = held_payout(live);
  const auto waiting_live = live_collection(live, "20.00");
  EXPECT_EQ(balance_of(db(), org_.id, "live", "USDC"), "850/150");
  const auto held = held_payout();
  const auto held_fiat = held_fiat_payout();
  stack_->stop("screening");
  const auto unscreened_response = create_payout(
      http(), org_.test_key, next_key(), payout_body("10", "USDC", "base", random_evm_address()));
  ASSERT_EQ(unscreened_response.status, 201) << unscreened_response.body;
  const std::string unscreened = unscreened_response.json()["id"].GetString();
  const auto unscreened_fiat = create_fiat(fiat_payout_body("100.00", mexico_case(), "Ana Lopez"));
  EXPECT_EQ(status_of("payouts", unscreened), "pending");
  EXPECT_EQ(status_of("fiat_payouts", unscreened_fiat), "pending");

  const auto create_collection_id = [&] {
    const auto response = create_collection(http(), org_.test_key, next_key(),
                                            collection_body("40.00", "CAD", "interac_etransfer"));
    EXPECT_EQ(response.status, 201) << response.body;
    return std::string(response.json()["id"].GetString());
  };
  const auto waiting = create_collection_id();
  const auto paid = create_collection_id();
  stack_->stop("settlement");
  ASSERT_EQ(collection_helper(http(), org_.test_key, paid, "receive").status, 202);
  EXPECT_NE(usdc(), "1000000/0");

  const auto [closed, output] = operator_command("org-close");
  ASSERT_EQ(closed, 0) << output;
  for (const auto& id : {held, unscreened, held_live}) {
    EXPECT_EQ(status_of("payouts", id), "cancelled") << id;
    EXPECT_EQ(event_count(db(), id, "payout.cancelled"), 1) << id;
  }
  for (const auto& id : {held_fiat, unscreened_fiat}) {
    EXPECT_EQ(status_of("fiat_payouts", id), "cancelled") << id;
    EXPECT_EQ(event_count(db(), id, "fiat_payout.cancelled"), 1) << id;
    EXPECT_EQ(db().scalar("SELECT actor FROM resource_transitions WHERE resource_id = '" + id +
                          "' AND to_status = 'cancelled'"),
              kOperator);
  }
  for (const auto& id : {waiting, waiting_live}) {
    EXPECT_EQ(status_of("collections", id), "cancelled") << id;
    EXPECT_EQ(event_count(db(), id, "collection.cancelled"), 1) << id;
  }
  EXPECT_EQ(status_of("collections", paid), "awaiting_payment");  // its payment arrived first
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(balance_of(db(), org_.id, "live", "USDC"), "1000/0");
  EXPECT_NE(output.find("cancelled 3 payouts, 2 fiat payouts and 2 collections"), std::string::npos)
      << output;
  EXPECT_EQ(ledger_mismatch(db()), "");
  const auto [code, trail] = stack_->cli({"audit-log", "--org", org_.id});
  ASSERT_EQ(code, 0) << trail;
  const auto audited = [&](const std::string& type, const std::string& id) {
    return trail.find(std::string(kOperator) + "\t" + type + ".cancelled\t" + org_.id + "\t" +
                      type + " " + id + "\torganization closed") != std::string::npos;
  };
  for (const auto& id : {held, unscreened, held_live}) {
    EXPECT_TRUE(audited("payout", id)) << trail;
  }
  for (const auto& id : {held_fiat, unscreened_fiat}) {
    EXPECT_TRUE(audited("fiat_payout", id)) << trail;
  }
  for (const auto& id : {waiting, waiting_live}) EXPECT_TRUE(audited("collection", id)) << trail;

  expect_every_session_route_refused(held, held_fiat);

  // The workers pick up what was queued before the close and change nothing cancelled; the
  // payment that arrived first is received and settled.
  stack_->start(std::vector<std::string>{"screening", "settlement"});
  for (const auto& id : {unscreened, unscreened_fiat}) {
    EXPECT_EQ(wait_for_value(db(),
                             "SELECT bool_and(consumed_at IS NOT NULL) FROM outbox WHERE "
                             "message_key = '" +
                                 id + "'",
                             "t"),
              "t")
        << id;
  }
  EXPECT_EQ(status_of("payouts", unscreened), "cancelled");
  EXPECT_EQ(status_of("fiat_payouts", unscreened_fiat), "cancelled");
  EXPECT_EQ(event_count(db(), unscreened, "payout.processing"), 0);
  EXPECT_EQ(
      wait_for_value(db(), "SELECT status FROM collections WHERE id = '" + paid + "'", "settled"),
      "settled");
  EXPECT_EQ(status_of("collections", waiting), "cancelled");
}

}  // namespace
}  // namespace payrail::testing
