// A data-key rotation on a live stack, as docs/operations.md ("Rotating keys") tells an operator
// to do it: values sealed with the old key (a webhook endpoint's secret, KYB owners, a fiat
// payout's account) keep working while the processes run with the new key and the old one as
// previous; `payrail data-key-reseal` then seals every one of them with the new key, after which
// the workers run with the new key alone. A fiat payout Idempotency-Key used before the rotation
// still replays while the API knows the previous key.
#include <gtest/gtest.h>

#include <chrono>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/crypto/data_key.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/https_receiver.h"
#include "tests/support/payouts.h"
#include "tests/support/receiver_suite.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

namespace crypto = infra::crypto;

const std::vector<std::string> kKeyHolders{"api", "execution", "settlement", "webhooks"};

class DataKeyRotation : public ReceiverSuite<DataKeyRotation> {
 public:  // read by ReceiverSuite
  static StackOptions stack_options() {
    return {.env = {{"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"}}};
  }

 protected:
  // Restarts every process that holds the data key with these settings.
  static void restart_key_holders(const std::string& key_hex, const std::string& previous_hex) {
    for (const auto& name : kKeyHolders) {
      stack_->process(name).set_env("PAYRAIL_WEBHOOK_ENCRYPTION_KEY", key_hex);
      stack_->process(name).set_env("PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS", previous_hex);
    }
    stack_->start(kKeyHolders);
  }

  // The signed fiat_payout.completed deliveries for `id`, verified with `secret`.
  static std::size_t verified_deliveries(const std::string& id, const std::string& secret) {
    const auto now_s = std::chrono::duration_cast<std::chrono::seconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
    std::size_t verified = 0;
    for (const auto& request : receiver_->requests()) {
      if (request.body.find(id) == std::string::npos) continue;
      if (verify_webhook_signature(request.header("service-signature"), secret, request.body,
                                   now_s)) {
        ++verified;
      }
    }
    return verified;
  }
};

TEST_F(DataKeyRotation, EverySealedValueSurvivesTheRotationAndEndsUnderTheNewKey) {
  const auto old_hex = stack_->env().at("PAYRAIL_WEBHOOK_ENCRYPTION_KEY");
  const auto new_hex = crypto::hex_encode(crypto::random_bytes(32));
  const auto organization = stack_->create_organization();
  const auto key = with_key(organization.test_key);
  // Sealed with the old key: the endpoint's secret, the KYB owners, one fiat payout's account
  // (execution is stopped, so it waits in processing without having opened it).
  const auto endpoint = stack_->http().post(
      "/v1/webhooks", R"({"url":")" + receiver_->url() + R"(","events":["fiat_payout.completed"]})",
      key);
  ASSERT_EQ(endpoint.status, 201) << endpoint.body;
  const std::string secret = endpoint.json()["secret"].GetString();
  stack_->verify_business(organization);
  stack_->stop("execution");
  const auto body = fiat_payout_body("250.00", mexico_case(), "Maria Lopez");
  const auto before = create_fiat_payout(stack_->http(), organization.test_key, "rotate-1", body);
  ASSERT_EQ(before.status, 201) << before.body;
  const std::string before_id = before.json()["id"].GetString();
  EXPECT_STREQ(before.json()["status"].GetString(), "processing");

  // Step 2: every key holder runs with the new key, the old one as previous.
  restart_key_holders(new_hex, old_hex);
  EXPECT_EQ(wait_for_fiat_status(stack_->http(), organization.test_key, before_id, {"completed"}),
            "completed");
  EXPECT_TRUE(receiver_->wait_for_requests(1, std::chrono::seconds(30)));
  EXPECT_EQ(verified_deliveries(before_id, secret), 1u);
  const auto replay = create_fiat_payout(stack_->http(), organization.test_key, "rotate-1", body);
  EXPECT_EQ(replay.status, 201) << replay.body;
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  const auto other = create_fiat_payout(stack_->http(), organization.test_key, "rotate-1",
                                        fiat_payout_body("251.00", mexico_case(), "Maria Lopez"));
  EXPECT_EQ(other.status, 409) << other.body;
  EXPECT_NE(stack_->http().get("/v1/kyb", key).body.find("Ada Lovelace"), std::string::npos);

  // Step 3: re-seal everything with the new key.
  auto rotating = stack_->env();
  rotating["PAYRAIL_WEBHOOK_ENCRYPTION_KEY"] = new_hex;
  rotating["PAYRAIL_WEBHOOK_ENCRYPTION_KEY_PREVIOUS"] = old_hex;
  const auto [code, output] = run_cli(rotating, {"data-key-reseal"});
  ASSERT_EQ(code, 0) << output;
  for (const auto* line : {"webhook_endpoints.secret_ciphertext: 1 re-sealed, 0 unreadable",
                           "kyb_beneficial_owners.name_sealed: 2 re-sealed, 0 unreadable",
                           "kyb_beneficial_owners.dob_sealed: 2 re-sealed, 0 unreadable",
                           "fiat_payouts.account_sealed: 1 re-sealed, 0 unreadable"}) {
    EXPECT_NE(output.find(line), std::string::npos) << output;
  }
  const auto account = stack_->database().scalar(
      "SELECT encode(account_sealed, 'hex') FROM fiat_payouts WHERE id = '" + before_id + "'");
  const auto opened = crypto::DataKey::from_hex(new_hex)->open(*crypto::hex_decode(account));
  ASSERT_TRUE(opened.ok());
  EXPECT_NE(opened->find(mexico_case().fields.front().second), std::string::npos);

  // Step 4: the new key alone; the old one is gone.
  restart_key_holders(new_hex, "");
  const auto after = create_fiat_payout(stack_->http(), organization.test_key, "rotate-2",
                                        fiat_payout_body("260.00", mexico_case(), "Maria Lopez"));
  ASSERT_EQ(after.status, 201) << after.body;
  const std::string after_id = after.json()["id"].GetString();
  EXPECT_EQ(wait_for_fiat_status(stack_->http(), organization.test_key, after_id, {"completed"}),
            "completed");
  EXPECT_TRUE(receiver_->wait_for_requests(2, std::chrono::seconds(30)));
  EXPECT_EQ(verified_deliveries(after_id, secret), 1u);
  EXPECT_NE(stack_->http().get("/v1/kyb", key).body.find("Ada Lovelace"), std::string::npos);
  EXPECT_EQ(ledger_mismatch(stack_->database()), "");
}

}  // namespace
}  // namespace payrail::testing
