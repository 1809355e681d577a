// Issue 38 items 3, 4 and 7 end to end over HTTP with every worker running: a fiat payout to a
// listed name written with invisible, compatibility or look-alike characters is blocked by
// screening (the SDN list and the internal blacklist) and nothing moves; control characters, DEL
// and C1 included, are refused in every text field with the field named; identifiers no issuer
// assigns are refused with the account field named. After each test the ledger equals the
// balances.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/collections.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

class TextScreening : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack(); }
  static void TearDownTestSuite() { delete stack_; }
  void SetUp() override { org_ = stack_->create_organization(); }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(stack_->database()), ""); }

  const HttpClient& http() const { return stack_->http(); }
  std::string next_key() { return "text-" + std::to_string(counter_++); }
  HttpResult pay(const std::string& name, const std::string& metadata_json = "") {
    return create_fiat_payout(http(), org_.test_key, next_key(),
                              fiat_payout_body("50.00", mexico_case(), name, metadata_json));
  }
  HttpResult pay_to(const std::string& country, const std::string& currency,
                    const std::string& account_json) {
    return create_fiat_payout(
        http(), org_.test_key, next_key(),
        fiat_payout_body("50.00", currency, country, "Ana Souza", account_json));
  }
  std::string usdc() const { return balance_of(stack_->database(), org_.id, "test", "USDC"); }
  std::string reasons_of(const HttpResult& blocked) const {
    const auto id = std::string(blocked.json()["error"]["fiat_payout_id"].GetString());
    const auto payout = http().get("/v1/fiat-payouts/" + id, with_key(org_.test_key)).json();
    std::string reasons;
    for (const auto& reason : payout["screening_result"]["reasons"].GetArray()) {
      reasons += std::string(reasons.empty() ? "" : ",") + reason.GetString();
    }
    return std::string(payout["status"].GetString()) + ":" + reasons;
  }

  static TestStack* stack_;
  TestOrganization org_;
  int counter_ = 0;
};
TestStack* TextScreening::stack_ = nullptr;

// "MADURO MOROS, Nicolas" is an individual on the shipped SDN list. Names are JSON text: \u
// escapes arrive as the code points they name.
TEST_F(TextScreening, ListedNameInDisguiseIsBlockedAsOfacSdn) {
  const std::vector<std::pair<std::string, std::string>> forms = {
      {"plain", "Nicolas Maduro Moros"},
      {"soft hyphen", "Nicolas Ma\\u00adduro Moros"},
      {"fullwidth",
       "\uFF2E\uFF49\uFF43\uFF4F\uFF4C\uFF41\uFF53 \uFF2D\uFF41\uFF44\uFF55\uFF52\uFF4F "
       "\uFF2D\uFF4F\uFF52\uFF4F\uFF53"},
      {"Cyrillic a", "Nicolas M\\u0430duro Moros"},
      {"Greek capitals", "\\u039D\\u0399COLAS \\u039C\\u0391DURO MOROS"},
      {"mathematical bold",
       "\U0001D40D\U0001D422\U0001D41C\U0001D428\U0001D425\U0001D41A"
       "\U0001D42C Maduro Moros"},
      {"zero-width joiner", "Nico\\u200dlas Maduro Moros"},
      {"right-to-left override", "Nicolas \\u202eMaduro\\u202c Moros"},
      {"variation selector", "Nicolas Maduro\\ufe0f Moros"},
      {"decomposed accent", "Nicola\\u0301s Maduro Moros"},
      {"digit one for l", "Nico1as Maduro Moros"},
      {"rn for m", "Nicolas Maduro Rnoros"},
  };
  for (const auto& [category, name] : forms) {
    const auto response = pay(name);
    ASSERT_TRUE(is_error(response, 403, "screening_blocked")) << category << ": " << response.body;
    EXPECT_EQ(reasons_of(response), "blocked:ofac_sdn") << category;
  }
  EXPECT_EQ(usdc(), "1000000/0");
}

TEST_F(TextScreening, BlacklistedNameInDisguiseIsBlockedAsInternalBlacklist) {
  const auto [code, output] =
      stack_->cli({"blacklist-add", "--name", "PAYRAILTEST, Ximena Oakst", "--reason", "test"});
  ASSERT_EQ(code, 0) << output;
  const std::vector<std::string> forms = {
      "Ximena Oakst Payrailtest",
      "Ximena Oak\\ufb06 Payrailtest",  // ligature st, as issue 38 found
      "Xi\\u00admena Oakst Payrailtest",
      "\uFF38\uFF49\uFF4D\uFF45\uFF4E\uFF41 Oakst Payrailtest",
      "Xim\\u0435na Oakst Payrailt\\u0435st",  // Cyrillic e
      "Ximena Oakst Payrail\\u2060test",
  };
  for (const auto& name : forms) {
    const auto response = pay(name);
    ASSERT_TRUE(is_error(response, 403, "screening_blocked")) << name << ": " << response.body;
    EXPECT_EQ(reasons_of(response), "blocked:internal_blacklist") << name;
  }
  ASSERT_TRUE(has_status(pay("Ximena Oakes Payrailtest"), 201));  // another name is paid
}

TEST_F(TextScreening, ControlCharactersAreRefusedInEveryTextField) {
  const auto expect_refused = [](const HttpResult& response, const std::string& param) {
    EXPECT_TRUE(is_error(response, 400, "bad_request", param)) << param << ": " << response.body;
  };
  // Issue 38's examples: DEL and NEL in a name, DEL and CSI in a reference; and C0, as before.
  expect_refused(pay("Ana\\u007fMaria\\u0085Lopez"), "beneficiary.name");
  expect_refused(pay("Nicolas Ma\\u007fduro Moros"), "beneficiary.name");
  expect_refused(pay("Ana\\u0080Lopez"), "beneficiary.name");
  expect_refused(pay("Ana\\u001fLopez"), "beneficiary.name");
  expect_refused(create_collection(http(), org_.test_key, next_key(),
                                   collection_body("100.00", "USD", "ach",
                                                   R"("customer_reference":"ref\u007f\u009b")")),
                 "customer_reference");
  expect_refused(
      http().post("/v1/kyb", kyb_submission_body("Acme\\u0085 Ltd"), with_key(org_.test_key)),
      "legal_name");
  expect_refused(http().post("/v1/api-keys", R"({"mode":"test","name":"ci\u007fkey"})",
                             with_key(org_.test_key)),
                 "name");
  expect_refused(http().post("/v1/organizations",
                             R"({"legal_name":"Acme\u009f","display_name":"Acme","country":"CA"})",
                             with_session(org_.session)),
                 "legal_name");
  expect_refused(
      http().post("/v1/webhooks",
                  R"({"url":"https://example.com/\u007fhook","events":["payout.completed"]})",
                  with_key(org_.test_key)),
      "url");
  for (const auto& key : {std::string("key\x7F"), std::string("key\xC2\x85")}) {
    expect_refused(http().post("/v1/fiat-payouts", fiat_payout_body("50.00", mexico_case(), "Ana"),
                               with_key(org_.test_key, {{"Idempotency-Key", key}})),
                   "Idempotency-Key");
  }
  EXPECT_EQ(usdc(), "1000000/0");
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM fiat_payouts WHERE org_id = '" +
                                      org_.id + "'"),
            "0");
}

// Metadata values are the integrator's own data (docs/errors.md): kept exactly as sent.
TEST_F(TextScreening, MetadataValuesKeepTheirControlCharacters) {
  const auto response = pay("Ana Souza", R"({"note":"line\nbreak\u007f\u0085"})");
  ASSERT_TRUE(has_status(response, 201)) << response.body;
  EXPECT_EQ(std::string(response.json()["metadata"]["note"].GetString()), "line\nbreak\x7F\u0085");
}

TEST_F(TextScreening, IdentifiersNoIssuerAssignsAreRefusedNamingTheField) {
  const auto expect_refused = [](const HttpResult& response, const std::string& field) {
    EXPECT_TRUE(is_error(response, 422, "unsupported_country", "beneficiary.account." + field))
        << field << ": " << response.body;
  };
  expect_refused(pay_to("MX", "MXN", R"({"type":"clabe","clabe":"000000000000000000"})"), "clabe");
  const auto us = [](const std::string& routing) {
    return R"({"type":"bank_account","routing_number":")" + routing +
           R"(","account_number":"000123456789","account_type":"checking"})";
  };
  expect_refused(pay_to("US", "USD", us("000000000")), "routing_number");
  expect_refused(pay_to("US", "USD", us("131000021")), "routing_number");  // routing symbol 13
  const auto ar = [](const std::string& cbu, const std::string& cuit) {
    return R"({"type":"cbu","cbu":")" + cbu + R"(","cuit":")" + cuit + R"("})";
  };
  expect_refused(pay_to("AR", "ARS", ar("0000000000000000000000", "27305678916")), "cbu");
  expect_refused(pay_to("AR", "ARS", ar("0170099240000123456782", "00000000000")), "cuit");
  EXPECT_TRUE(has_status(pay_to("US", "USD", us("021000021")), 201));
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM fiat_payouts WHERE org_id = '" +
                                      org_.id + "'"),
            "1");
}

}  // namespace
}  // namespace payrail::testing
