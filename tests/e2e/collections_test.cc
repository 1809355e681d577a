// Collections end to end over HTTP with every worker role running (one stack for the file):
// payment instructions per method; receive -> settled with the exact USDC credit (the published
// rate, rounded down) visible in GET /v1/balances; amount mismatches; failure, expiry, cancel
// before and after payment; late and duplicate payments and unknown references recorded for an
// operator, never credited; duplicate provider notifications and duplicate Kafka messages
// credit once; idempotency, validation, lists, isolation and scopes; live mode (gating, and a
// settled collection funding a live stablecoin payout); signed webhooks for every collection
// event through a real HTTPS receiver; expiry by database time with the test clock offset.
// After each test the ledger must equal the balances.
#include <gtest/gtest.h>

#include <ctime>

#include "infra/plumbing/time/clock.h"
#include "tests/support/collections.h"
#include "tests/support/https_receiver.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr auto kDeliveryTimeout = std::chrono::seconds(30);
const std::set<std::string> kTerminal{"settled", "failed", "expired", "cancelled"};

class Collections : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    receiver_ = new HttpsReceiver();
    // Live mode is staged: the simulated collection provider and chain adapter, and the
    // reference rates table as the live rate source.
    stack_ = new TestStack({.env = {{"PAYRAIL_WEBHOOK_CA_FILE", receiver_->certificate_path()},
                                    {"PAYRAIL_COLLECTION_PROVIDER", "simulated"},
                                    {"PAYRAIL_CHAIN_ADAPTER", "simulated"},
                                    {"PAYRAIL_RATE_SOURCE", "reference"},
                                    {"PAYRAIL_EXPIRY_INTERVAL_MS", "200"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete receiver_;
  }
  void SetUp() override { org_ = stack_->create_organization(); }
  void TearDown() override { EXPECT_EQ(ledger_mismatch(db()), ""); }

  static const HttpClient& http() { return stack_->http(); }
  static const TestDatabase& db() { return stack_->database(); }

  HttpResult create(const std::string& body, const std::string& key = "") {
    return create_collection(http(), org_.test_key, key.empty() ? next_key() : key, body);
  }
  // Creates and returns the collection (asserting 201).
  rapidjson::Document created(const std::string& amount, const std::string& currency,
                              const std::string& method, const std::string& extra = "") {
    const auto response = create(collection_body(amount, currency, method, extra));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json();
  }
  std::string create_id(const std::string& amount = "100.00", const std::string& currency = "CAD",
                        const std::string& method = "interac_etransfer") {
    return created(amount, currency, method)["id"].GetString();
  }
  std::string next_key() { return "col-key-" + std::to_string(counter_++); }
  HttpResult get(const std::string& id, const std::string& key = "") {
    return http().get("/v1/collections/" + id, with_key(key.empty() ? org_.test_key : key));
  }
  HttpResult helper(const std::string& id, const std::string& action,
                    const std::string& body = "") {
    return collection_helper(http(), org_.test_key, id, action, body);
  }
  HttpResult cancel(const std::string& id, const std::string& key = "") {
    return http().post("/v1/collections/" + id + "/cancel", "",
                       with_key(key.empty() ? org_.test_key : key));
  }
  std::string wait(const std::string& id, const std::set<std::string>& statuses) {
    return wait_for_collection(http(), org_.test_key, id, statuses);
  }
  std::string usdc() { return usdc_available(http(), org_.test_key); }
  // The outcome the settlement worker gave the latest notification of a collection's reference.
  std::string wait_outcome(const std::string& provider_event_where, const std::string& expected) {
    return wait_for_value(db(),
                          "SELECT coalesce(outcome, 'pending') FROM collection_provider_events "
                          "WHERE " +
                              provider_event_where + " ORDER BY arrival DESC LIMIT 1",
                          expected);
  }
  static std::string reference_of(const rapidjson::Value& collection) {
    return collection["payment_instructions"]["reference"].GetString();
  }
  static int journal_entries(const std::string& id) {
    return std::stoi(
        db().scalar("SELECT count(*) FROM journal_entries WHERE resource_id = '" + id + "'"));
  }
  std::pair<int, std::string> cli(const std::vector<std::string>& arguments) {
    return stack_->cli(arguments);
  }
  std::string live_key(const TestOrganization& organization) {
    stack_->verify_business(organization);
    const auto response = http().post("/v1/api-keys", R"({"mode":"live"})",
                                      {{"Authorization", "Bearer " + organization.session},
                                       {"Payrail-Organization", organization.id}});
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["key"].GetString();
  }
  void restart_with(const std::string& role, const std::string& name, const std::string& value) {
    stack_->process(role).set_env(name, value);
    stack_->start(role);
  }

  static TestStack* stack_;
  static HttpsReceiver* receiver_;
  TestOrganization org_;
  int counter_ = 0;
};
TestStack* Collections::stack_ = nullptr;
HttpsReceiver* Collections::receiver_ = nullptr;

std::time_t seconds_of(const std::string& timestamp) {
  const auto parsed = infra::time::parse_utc(timestamp);
  EXPECT_TRUE(parsed.has_value()) << timestamp;
  return std::chrono::system_clock::to_time_t(*parsed);
}

TEST_F(Collections, InstructionsForEachMethod) {
  const auto interac = created("100.00", "CAD", "interac_etransfer",
                               R"("customer_reference":"cust-42","metadata":{"order":"A-1"})");
  EXPECT_STREQ(interac["object"].GetString(), "collection");
  EXPECT_EQ(std::string(interac["id"].GetString()).rfind("col_", 0), 0u);
  EXPECT_STREQ(interac["status"].GetString(), "awaiting_payment");
  EXPECT_STREQ(interac["mode"].GetString(), "test");
  EXPECT_STREQ(interac["amount"].GetString(), "100.00");
  EXPECT_STREQ(interac["customer_reference"].GetString(), "cust-42");
  EXPECT_STREQ(interac["metadata"]["order"].GetString(), "A-1");
  EXPECT_TRUE(interac["settled_amount"].IsNull());
  const auto& etransfer = interac["payment_instructions"];
  EXPECT_STREQ(etransfer["type"].GetString(), "interac_etransfer");
  EXPECT_NE(std::string(etransfer["send_to"].GetString()).find('@'), std::string::npos);
  EXPECT_TRUE(etransfer["auto_deposit"].GetBool());
  EXPECT_EQ(etransfer.MemberCount(), 4u);
  // Expires 72 hours after creation by default.
  EXPECT_EQ(
      seconds_of(interac["expires_at"].GetString()) - seconds_of(interac["created_at"].GetString()),
      72 * 3600);

  const auto ach = created("250.00", "USD", "ach");
  const auto& account = ach["payment_instructions"];
  EXPECT_STREQ(account["type"].GetString(), "virtual_account");
  for (const auto* field : {"bank_name", "account_holder_name", "account_number"}) {
    EXPECT_GT(std::string(account[field].GetString()).size(), 0u) << field;
  }
  const std::string routing = account["routing_number"].GetString();
  ASSERT_EQ(routing.size(), 9u);
  const auto d = [&](int i) { return routing[static_cast<std::size_t>(i)] - '0'; };
  EXPECT_EQ((3 * (d(0) + d(3) + d(6)) + 7 * (d(1) + d(4) + d(7)) + d(2) + d(5) + d(8)) % 10, 0)
      << "ABA checksum of " << routing;
  EXPECT_FALSE(account.HasMember("institution_number"));

  const auto eft = created("1234.56", "CAD", "eft");
  const auto& virtual_account = eft["payment_instructions"];
  EXPECT_STREQ(virtual_account["type"].GetString(), "virtual_account");
  EXPECT_EQ(std::string(virtual_account["institution_number"].GetString()).size(), 3u);
  EXPECT_EQ(std::string(virtual_account["transit_number"].GetString()).size(), 5u);
  EXPECT_FALSE(virtual_account.HasMember("routing_number"));

  // References: unique per collection, 12 characters, short enough for any transfer message.
  const std::set<std::string> references{reference_of(interac), reference_of(ach),
                                         reference_of(eft)};
  EXPECT_EQ(references.size(), 3u);
  for (const auto& reference : references) {
    EXPECT_EQ(reference.size(), 12u);
    EXPECT_EQ(reference.rfind("PR", 0), 0u);
  }
  const auto fetched = get(interac["id"].GetString());
  ASSERT_EQ(fetched.status, 200);
  EXPECT_EQ(reference_of(fetched.json()), reference_of(interac));
}

// For each method: the credit is amount x the rate GET /v1/rates shows, rounded down to 6
// decimals, recorded on the collection and added exactly to the available USDC balance.
TEST_F(Collections, ReceiveSettlesWithTheExactCreditForEachMethod) {
  struct Case {
    std::string amount, currency, method;
  };
  for (const auto& [amount, currency, method] :
       std::vector<Case>{{"100.00", "CAD", "interac_etransfer"},
                         {"250.10", "USD", "ach"},
                         {"1234.57", "CAD", "eft"}}) {
    const auto before = usdc();
    const auto rate = rate_to_usdc(http(), org_.test_key, currency);
    const std::string id = created(amount, currency, method)["id"].GetString();
    const auto received = helper(id, "receive");
    ASSERT_EQ(received.status, 202) << received.body;
    EXPECT_STREQ(received.json()["status"].GetString(), "awaiting_payment");  // workers do the rest
    ASSERT_EQ(wait(id, kTerminal), "settled") << method;
    const auto collection = get(id).json();
    const auto credit = usdc_for(amount, rate);
    EXPECT_STREQ(collection["received_amount"].GetString(), amount.c_str());
    EXPECT_STREQ(collection["settled_asset"].GetString(), "USDC");
    EXPECT_EQ(compare_amounts(collection["settled_amount"].GetString(), credit), 0)
        << collection["settled_amount"].GetString() << " != " << credit;
    EXPECT_EQ(compare_amounts(collection["exchange_rate"].GetString(), rate), 0);
    EXPECT_EQ(compare_amounts(usdc(), add_amounts(before, credit)), 0) << method;
    EXPECT_EQ(event_count(db(), id, "collection.received"), 1);
    EXPECT_EQ(event_count(db(), id, "collection.settled"), 1);
    EXPECT_EQ(
        db().scalar("SELECT string_agg(kind, ',') FROM journal_entries WHERE resource_id = '" + id +
                    "'"),
        "credit");
    EXPECT_EQ(db().scalar("SELECT string_agg(from_status || '>' || to_status, ',' ORDER BY id) "
                          "FROM resource_transitions WHERE resource_id = '" +
                          id + "' AND from_status IS NOT NULL"),
              "awaiting_payment>received,received>settled");
  }
  // 100 CAD at the reference rate 0.714285714286 credits 71.428571 USDC (docs/catalog.md).
  EXPECT_EQ(usdc_for("100.00", rate_to_usdc(http(), org_.test_key, "CAD")), "71.428571");
}

struct MethodCase {
  std::string currency;
  std::string method;
};
const std::vector<MethodCase> kEachMethod{
    {"CAD", "interac_etransfer"}, {"USD", "ach"}, {"CAD", "eft"}};

// What arrived is credited and both amounts are kept: `amount` (requested) and
// `received_amount` (paid); under- and over-payments alike, for each method.
TEST_F(Collections, AmountMismatchCreditsWhatArrivedAndRecordsBoth) {
  for (const auto& [currency, method] : kEachMethod) {
    const auto rate = rate_to_usdc(http(), org_.test_key, currency);
    for (const std::string paid : {"80.00", "120.5"}) {
      const auto before = usdc();
      const auto id = create_id("100.00", currency, method);
      ASSERT_EQ(helper(id, "receive", R"({"amount":")" + paid + "\"}").status, 202);
      ASSERT_EQ(wait(id, kTerminal), "settled") << method;
      const auto collection = get(id).json();
      EXPECT_STREQ(collection["amount"].GetString(), "100.00");
      EXPECT_EQ(compare_amounts(collection["received_amount"].GetString(), paid), 0);
      EXPECT_EQ(compare_amounts(collection["settled_amount"].GetString(), usdc_for(paid, rate)), 0);
      EXPECT_EQ(compare_amounts(usdc(), add_amounts(before, usdc_for(paid, rate))), 0) << method;
    }
  }
  const auto id = create_id("100.00");
  EXPECT_EQ(helper(id, "receive", R"({"amount":"1.001"})").error_param(), "amount");
  EXPECT_EQ(helper(id, "receive", R"({"amount":"0"})").error_param(), "amount");
  EXPECT_EQ(helper(id, "receive", R"({"amount":10})").error_param(), "amount");
}

TEST_F(Collections, FailedOrReturnedPaymentCreditsNothing) {
  const auto before = usdc();
  std::vector<std::string> ids;
  for (const auto& [currency, method] : kEachMethod) {
    for (const std::string reason : {"payment_failed", "payment_returned"}) {
      const auto id = create_id("40.00", currency, method);
      ids.push_back(id);
      const auto body = reason == "payment_failed" ? "" : R"({"reason":"payment_returned"})";
      ASSERT_EQ(helper(id, "fail", body).status, 202);
      ASSERT_EQ(wait(id, kTerminal), "failed") << method;
      const auto collection = get(id).json();
      EXPECT_EQ(collection["failure_reason"].GetString(), reason);
      EXPECT_STREQ(collection["received_amount"].GetString(), "40.00");
      EXPECT_TRUE(collection["settled_amount"].IsNull());
      EXPECT_EQ(event_count(db(), id, "collection.received"), 1);
      EXPECT_EQ(event_count(db(), id, "collection.failed"), 1);
      EXPECT_EQ(event_count(db(), id, "collection.settled"), 0);
      EXPECT_EQ(journal_entries(id), 0);
    }
  }
  EXPECT_EQ(usdc(), before);
  // Nothing left to fail; a bad reason is a 400.
  const auto again = helper(ids.front(), "fail");
  EXPECT_EQ(again.status, 409);
  EXPECT_EQ(again.error_code(), "collection_unexpected_state");
  EXPECT_EQ(helper(create_id(), "fail", R"({"reason":"payment_received"})").error_param(),
            "reason");
}

TEST_F(Collections, ExpireHelperExpiresThroughTheWorker) {
  for (const auto& [currency, method] : kEachMethod) {
    const auto id = create_id("9.99", currency, method);
    const auto expired = helper(id, "expire");
    ASSERT_EQ(expired.status, 202) << expired.body;
    EXPECT_STREQ(expired.json()["status"].GetString(), "awaiting_payment");
    ASSERT_EQ(wait(id, kTerminal), "expired") << method;
    EXPECT_EQ(event_count(db(), id, "collection.expired"), 1);
    EXPECT_EQ(helper(id, "expire").error_code(), "collection_unexpected_state");
    EXPECT_EQ(cancel(id).error_code(), "collection_not_cancelable");
  }
  EXPECT_EQ(helper(create_id(), "expire", R"({"now":true})").status, 400);
}

// A payment after expiry is recorded, shown on the collection as an unapplied payment and listed
// for an operator; it is never credited.
TEST_F(Collections, LatePaymentIsRecordedNotCredited) {
  const auto before = usdc();
  for (const auto& [currency, method] : kEachMethod) {
    const auto id = create_id("75.00", currency, method);
    ASSERT_EQ(helper(id, "expire").status, 202);
    ASSERT_EQ(wait(id, kTerminal), "expired");
    ASSERT_EQ(helper(id, "receive").status, 202);
    EXPECT_EQ(wait_outcome("collection_id = '" + id + "'", "late_payment"), "late_payment");
    const auto collection = get(id).json();
    EXPECT_STREQ(collection["status"].GetString(), "expired");
    ASSERT_TRUE(collection.HasMember("unapplied_payments")) << get(id).body;
    ASSERT_EQ(collection["unapplied_payments"].Size(), 1u);
    EXPECT_STREQ(collection["unapplied_payments"][0]["amount"].GetString(), "75.00");
    EXPECT_EQ(collection["unapplied_payments"][0]["currency"].GetString(), currency);
    EXPECT_STREQ(collection["unapplied_payments"][0]["reason"].GetString(), "late_payment");
    EXPECT_EQ(journal_entries(id), 0);
    const auto [code, output] = cli({"collection-exceptions", "--mode", "test"});
    ASSERT_EQ(code, 0) << output;
    EXPECT_NE(output.find(id), std::string::npos);
  }
  EXPECT_EQ(usdc(), before);
}

// Cancel before payment (a later payment is late, not credited); after payment it is refused,
// and a second payment of a paid collection is a duplicate, not credited either.
TEST_F(Collections, CancelBeforeAndAfterPayment) {
  for (const auto& [currency, method] : kEachMethod) {
    const auto before = usdc();
    const auto unpaid = create_id("11.00", currency, method);
    const auto cancelled = cancel(unpaid);
    ASSERT_EQ(cancelled.status, 200) << cancelled.body;
    EXPECT_STREQ(cancelled.json()["status"].GetString(), "cancelled");
    EXPECT_EQ(cancel(unpaid).error_code(), "collection_not_cancelable");
    EXPECT_EQ(wait_for_value(db(),
                             "SELECT count(*) FROM events WHERE resource_id = '" + unpaid +
                                 "' AND type = 'collection.cancelled'",
                             "1"),
              "1");
    EXPECT_EQ(db().scalar("SELECT actor FROM resource_transitions WHERE resource_id = '" + unpaid +
                          "' AND to_status = 'cancelled'")
                  .rfind("key_", 0),
              0u);
    ASSERT_EQ(helper(unpaid, "receive").status, 202);
    EXPECT_EQ(wait_outcome("collection_id = '" + unpaid + "'", "late_payment"), "late_payment");
    EXPECT_EQ(usdc(), before);

    const auto paid = create_id("10.00", currency, method);
    ASSERT_EQ(helper(paid, "receive").status, 202);
    ASSERT_EQ(wait(paid, kTerminal), "settled");
    const std::string credited = get(paid).json()["settled_amount"].GetString();
    const auto refused = cancel(paid);
    EXPECT_EQ(refused.status, 409);
    EXPECT_EQ(refused.error_code(), "collection_not_cancelable");
    ASSERT_EQ(helper(paid, "receive").status, 202);  // the payer pays twice
    EXPECT_EQ(wait_outcome("collection_id = '" + paid + "'", "duplicate_payment"),
              "duplicate_payment");
    const auto after = get(paid).json();
    EXPECT_STREQ(after["status"].GetString(), "settled");
    ASSERT_TRUE(after.HasMember("unapplied_payments"));
    EXPECT_STREQ(after["unapplied_payments"][0]["reason"].GetString(), "duplicate_payment");
    EXPECT_EQ(journal_entries(paid), 1);
    EXPECT_EQ(compare_amounts(usdc(), add_amounts(before, credited)), 0) << method;
  }
  EXPECT_EQ(cancel("col_doesnotexist").error_code(), "resource_missing");
  EXPECT_EQ(
      http()
          .post("/v1/collections/" + create_id() + "/cancel", R"({"x":1})", with_key(org_.test_key))
          .status,
      400);
}

// A payment whose reference names no collection is recorded as unmatched for an operator and
// credited to nobody; a reference typed in lower case with spaces and hyphens still matches.
TEST_F(Collections, UnknownReferenceIsUnmatchedNeverGuessed) {
  int unmatched = 0;
  for (const auto& [currency, method] : kEachMethod) {
    const auto before = usdc();
    const auto collection = created("30.00", currency, method);
    const std::string id = collection["id"].GetString();
    const auto wrong = "Invoice 1042 " + method;
    ASSERT_EQ(helper(id, "receive", R"({"reference":")" + wrong + "\"}").status, 202);
    EXPECT_EQ(wait_outcome("reference = '" + wrong + "'", "unmatched_reference"),
              "unmatched_reference");
    EXPECT_EQ(get(id).json()["status"].GetString(), std::string("awaiting_payment"));
    EXPECT_EQ(db().scalar("SELECT count(*) FROM collection_provider_events WHERE reference = '" +
                          wrong + "' AND collection_id IS NULL AND org_id IS NULL"),
              "1");
    EXPECT_EQ(usdc(), before);
    ++unmatched;

    std::string typed = reference_of(collection);
    for (auto& c : typed) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    typed.insert(6, "- ");
    ASSERT_EQ(helper(id, "receive", R"({"reference":")" + typed + "\"}").status, 202);
    ASSERT_EQ(wait(id, kTerminal), "settled") << method;
  }
  const auto [code, output] = cli({"collection-exceptions"});
  ASSERT_EQ(code, 0) << output;
  std::size_t listed = 0;
  for (auto at = output.find("unmatched_reference"); at != std::string::npos;
       at = output.find("unmatched_reference", at + 1)) {
    ++listed;
  }
  EXPECT_GE(listed, static_cast<std::size_t>(unmatched));
}

// A provider that sends the same notification twice (same event id) is recorded once; a second
// Kafka message pointing at an applied notification changes nothing. One credit either way.
TEST_F(Collections, DuplicateProviderEventsAndMessagesCreditOnce) {
  const auto collection = created("20.00", "USD", "ach");
  const std::string id = collection["id"].GetString();
  const auto before = usdc();
  const std::vector<std::string> notify{"collection-provider-event",
                                        "--provider",
                                        "simulated",
                                        "--event-id",
                                        "prov-evt-" + id,
                                        "--type",
                                        "payment_received",
                                        "--mode",
                                        "test",
                                        "--method",
                                        "ach",
                                        "--reference",
                                        reference_of(collection),
                                        "--amount",
                                        "20.00",
                                        "--currency",
                                        "USD",
                                        "--operator",
                                        "ops-test"};
  const auto first = cli(notify);
  ASSERT_EQ(first.first, 0) << first.second;
  EXPECT_EQ(first.second.rfind("recorded pev_", 0), 0u) << first.second;
  const auto second = cli(notify);
  ASSERT_EQ(second.first, 0) << second.second;
  EXPECT_EQ(second.second.rfind("duplicate of pev_", 0), 0u) << second.second;
  ASSERT_EQ(wait(id, kTerminal), "settled");
  EXPECT_EQ(db().scalar("SELECT count(*) FROM collection_provider_events WHERE provider_event_id "
                        "= 'prov-evt-" +
                        id + "'"),
            "1");

  // The same pointer published again, as a redelivery would: consumed, and nothing moves.
  const auto pev =
      db().scalar("SELECT id FROM collection_provider_events WHERE collection_id = '" + id + "'");
  db().scalar(
      "INSERT INTO outbox (message_id, topic, message_key, payload) SELECT "
      "'msg_duplicate0000000000000', topic, message_key, replace(payload, message_id, "
      "'msg_duplicate0000000000000') FROM outbox WHERE message_key = '" +
      pev + "' RETURNING 1");
  EXPECT_EQ(wait_for_value(db(),
                           "SELECT consumed_at IS NOT NULL FROM outbox WHERE message_id = "
                           "'msg_duplicate0000000000000'",
                           "t"),
            "t");
  EXPECT_EQ(journal_entries(id), 1);
  EXPECT_EQ(event_count(db(), id, "collection.settled"), 1);
  EXPECT_EQ(compare_amounts(usdc(), add_amounts(before, "20.000000")), 0);

  // The same event id with another amount is no redelivery: recorded for operators, listed with
  // the exceptions, never applied, never ignored.
  auto conflicting = notify;
  conflicting[14] = "2000.00";
  const auto third = cli(conflicting);
  ASSERT_EQ(third.first, 0) << third.second;
  EXPECT_EQ(third.second.rfind("conflicting duplicate of " + pev + ", recorded pev_", 0), 0u)
      << third.second;
  const auto [listed, exceptions] = cli({"collection-exceptions", "--mode", "test"});
  ASSERT_EQ(listed, 0) << exceptions;
  EXPECT_NE(exceptions.find("\tconflicting_duplicate\tpayment_received\t2000.00 USD\t"),
            std::string::npos)
      << exceptions;
  // A live notification reusing the test one's id is another notification (unmatched here: the
  // reference is a test-mode collection's).
  auto live = notify;
  live[8] = "live";
  const auto fourth = cli(live);
  ASSERT_EQ(fourth.first, 0) << fourth.second;
  EXPECT_EQ(fourth.second.rfind("recorded pev_", 0), 0u) << fourth.second;
  EXPECT_EQ(wait_outcome("provider_event_id = 'prov-evt-" + id + "' AND mode = 'live'",
                         "unmatched_reference"),
            "unmatched_reference");
  EXPECT_EQ(journal_entries(id), 1);
  EXPECT_EQ(compare_amounts(usdc(), add_amounts(before, "20.000000")), 0);
}

TEST_F(Collections, IdempotentCreate) {
  const auto body = collection_body("12.34", "CAD", "eft");
  const auto first = create(body, "same-key");
  ASSERT_EQ(first.status, 201);
  const auto replay = create(body, "same-key");
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  EXPECT_EQ(replay.body, first.body);
  EXPECT_EQ(replay.header("request-id"), first.header("request-id"));
  const auto conflict = create(collection_body("12.35", "CAD", "eft"), "same-key");
  EXPECT_EQ(conflict.status, 409);
  EXPECT_EQ(conflict.error_code(), "idempotency_conflict");
  EXPECT_EQ(db().scalar("SELECT count(*) FROM collections WHERE org_id = '" + org_.id + "'"), "1");
  // The key is per organization: another organization may use it.
  const auto other = stack_->create_organization();
  EXPECT_EQ(create_collection(http(), other.test_key, "same-key", body).status, 201);
  const auto missing =
      http().post("/v1/collections", body, with_key(org_.test_key));  // no Idempotency-Key
  EXPECT_EQ(missing.status, 400);
  EXPECT_EQ(missing.error_param(), "Idempotency-Key");
}

TEST_F(Collections, ValidationErrorsNameTheField) {
  struct Case {
    std::string body;
    int status;
    std::string code;
    std::string param;
  };
  const std::vector<Case> cases{
      {collection_body("10", "CAD", "wire"), 422, "unsupported_method", "method"},
      {collection_body("10", "USD", "interac_etransfer"), 422, "unsupported_method", "currency"},
      {collection_body("10", "CAD", "ach"), 422, "unsupported_method", "currency"},
      {collection_body("10", "cad", "eft"), 422, "unsupported_method", "currency"},
      {collection_body("10.001", "CAD", "eft"), 400, "bad_request", "amount"},
      {collection_body("0", "USD", "ach"), 400, "bad_request", "amount"},
      {collection_body("-5", "USD", "ach"), 400, "bad_request", "amount"},
      {collection_body("1e3", "USD", "ach"), 400, "bad_request", "amount"},
      {R"({"amount":10,"currency":"USD","method":"ach"})", 400, "bad_request", "amount"},
      {R"({"currency":"USD","method":"ach"})", 400, "bad_request", "amount"},
      {collection_body("10", "USD", "ach",
                       R"("customer_reference":")" + std::string(201, 'x') + "\""),
       400, "bad_request", "customer_reference"},
      {collection_body("10", "USD", "ach", R"("customer_reference":"")"), 400, "bad_request",
       "customer_reference"},
      {collection_body("10", "USD", "ach", R"("metadata":{"k":1})"), 400, "bad_request",
       "metadata.k"},
      {collection_body("10", "USD", "ach", R"("expires_at":"2030-01-01T00:00:00Z")"), 400,
       "bad_request", "expires_at"},
  };
  for (const auto& test : cases) {
    const auto response = create(test.body);
    EXPECT_EQ(response.status, test.status) << test.body << " -> " << response.body;
    EXPECT_EQ(response.error_code(), test.code) << test.body;
    EXPECT_EQ(response.error_param(), test.param) << test.body;
  }
  EXPECT_EQ(db().scalar("SELECT count(*) FROM collections WHERE org_id = '" + org_.id + "'"), "0");
}

TEST_F(Collections, ListsNewestFirstWithFilters) {
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) ids.push_back(create_id());
  ASSERT_EQ(cancel(ids[1]).status, 200);
  const auto page = http().get("/v1/collections?limit=2", with_key(org_.test_key));
  ASSERT_EQ(page.status, 200) << page.body;
  auto json = page.json();
  ASSERT_EQ(json["data"].Size(), 2u);
  EXPECT_EQ(std::string(json["data"][0]["id"].GetString()), ids[2]);
  EXPECT_TRUE(json["has_more"].GetBool());
  std::set<std::string> keys;
  for (const auto& member : json["data"][0].GetObject()) keys.insert(member.name.GetString());
  EXPECT_EQ(keys, (std::set<std::string>{"id", "object", "status", "mode", "amount", "currency",
                                         "method", "created_at"}));
  const auto next = http().get(
      "/v1/collections?limit=2&starting_after=" + std::string(json["next_cursor"].GetString()),
      with_key(org_.test_key));
  ASSERT_EQ(next.json()["data"].Size(), 1u);
  EXPECT_EQ(std::string(next.json()["data"][0]["id"].GetString()), ids[0]);
  const auto cancelled = http().get("/v1/collections?status=cancelled", with_key(org_.test_key));
  ASSERT_EQ(cancelled.json()["data"].Size(), 1u);
  EXPECT_EQ(std::string(cancelled.json()["data"][0]["id"].GetString()), ids[1]);
  EXPECT_EQ(http()
                .get("/v1/collections?created_gte=2000-01-01T00:00:00Z", with_key(org_.test_key))
                .json()["data"]
                .Size(),
            3u);
  EXPECT_EQ(http().get("/v1/collections?status=paid", with_key(org_.test_key)).error_param(),
            "status");
  EXPECT_EQ(
      http().get("/v1/collections?created_lte=yesterday", with_key(org_.test_key)).error_param(),
      "created_lte");
  EXPECT_EQ(
      http().get("/v1/collections?starting_after=col_nope", with_key(org_.test_key)).error_param(),
      "starting_after");
}

TEST_F(Collections, IsolationBetweenOrganizationsAndModes) {
  const auto id = create_id();
  const auto other = stack_->create_organization();
  EXPECT_EQ(get(id, other.test_key).error_code(), "resource_missing");
  EXPECT_EQ(cancel(id, other.test_key).error_code(), "resource_missing");
  for (const auto* action : {"receive", "fail", "expire"}) {
    EXPECT_EQ(collection_helper(http(), other.test_key, id, action).status, 404) << action;
  }
  EXPECT_EQ(http().get("/v1/collections", with_key(other.test_key)).json()["data"].Size(), 0u);
  EXPECT_EQ(
      http().get("/v1/collections?starting_after=" + id, with_key(other.test_key)).error_param(),
      "starting_after");
  EXPECT_STREQ(get(id).json()["status"].GetString(), "awaiting_payment");
}

TEST_F(Collections, ScopesAreEnforced) {
  const auto make_key = [&](const std::string& scopes) {
    const auto response = http().post("/v1/api-keys", R"({"mode":"test","scopes":)" + scopes + "}",
                                      with_key(org_.test_key));
    EXPECT_EQ(response.status, 201) << response.body;
    return std::string(response.json()["key"].GetString());
  };
  const auto reader = make_key(R"(["collections:read"])");
  const auto writer = make_key(R"(["collections:write"])");
  const auto id = create_id();
  EXPECT_EQ(get(id, reader).status, 200);
  EXPECT_EQ(http().get("/v1/collections", with_key(reader)).status, 200);
  for (const auto& response :
       {create_collection(http(), reader, "r1", collection_body("1", "USD", "ach")),
        cancel(id, reader), collection_helper(http(), reader, id, "receive")}) {
    EXPECT_EQ(response.status, 403);
    EXPECT_EQ(response.error_code(), "scope_insufficient");
  }
  EXPECT_EQ(create_collection(http(), writer, "w1", collection_body("1", "USD", "ach")).status,
            201);
  EXPECT_EQ(get(id, writer).error_code(), "scope_insufficient");
  EXPECT_EQ(http().get("/v1/collections", with_key(writer)).error_code(), "scope_insufficient");
}

// Live mode: a verified business, its rail enabled by an operator, a configured provider; the
// test helpers do not exist; a payment notified by the provider settles and funds the live
// balance, which a live stablecoin payout then spends to the unit.
TEST_F(Collections, LiveCollectionFundsALiveStablecoinPayout) {
  const auto live = live_key(org_);
  const auto body = collection_body("140.00", "CAD", "eft");
  const auto refused = create_collection(http(), live, "live-1", body);
  EXPECT_EQ(refused.status, 503) << refused.body;
  EXPECT_EQ(refused.error_code(), "provider_unavailable");
  ASSERT_EQ(cli({"rail-enable", "--org", org_.id, "--method", "eft", "--operator", "ops"}).first,
            0);
  const auto response = create_collection(http(), live, "live-1", body);
  ASSERT_EQ(response.status, 201) << response.body;
  const auto collection = response.json();
  const std::string id = collection["id"].GetString();
  EXPECT_STREQ(collection["mode"].GetString(), "live");
  EXPECT_EQ(collection_helper(http(), live, id, "receive").status, 404);
  EXPECT_EQ(get(id).status, 404);  // the test key never sees live data
  ASSERT_EQ(usdc_available(http(), live), "0.000000");

  const auto notified = cli({"collection-provider-event", "--provider", "simulated", "--event-id",
                             "live-" + id, "--type", "payment_received", "--mode", "live",
                             "--method", "eft", "--reference", reference_of(collection), "--amount",
                             "140.00", "--currency", "CAD", "--operator", "ops"});
  ASSERT_EQ(notified.first, 0) << notified.second;
  ASSERT_EQ(wait_for_collection(http(), live, id, kTerminal), "settled");
  // 140 CAD at 0.714285714286 is 100.00000000004 USDC: exactly 100 credited.
  EXPECT_EQ(usdc_available(http(), live), "100.000000");
  EXPECT_STREQ(get(id, live).json()["settled_amount"].GetString(), "100.000000");

  const auto too_much = create_payout(
      http(), live, "po-1", payout_body("100.000001", "USDC", "polygon", random_evm_address()));
  EXPECT_EQ(too_much.status, 402) << too_much.body;
  const auto payout = create_payout(http(), live, "po-2",
                                    payout_body("100", "USDC", "polygon", random_evm_address()));
  ASSERT_EQ(payout.status, 201) << payout.body;
  EXPECT_EQ(wait_for_status(http(), live, payout.json()["id"].GetString(), {"completed", "failed"}),
            "completed");
  EXPECT_EQ(usdc_available(http(), live), "0.000000");

  // Without a provider, live collections are unavailable, but a retry with a used key still
  // gets its original answer.
  restart_with("api", "PAYRAIL_COLLECTION_PROVIDER", "");
  const auto unavailable = create_collection(http(), live, "live-2", body);
  EXPECT_EQ(unavailable.status, 503);
  EXPECT_EQ(unavailable.error_code(), "provider_unavailable");
  const auto replay = create_collection(http(), live, "live-1", body);
  EXPECT_EQ(replay.status, 201);
  EXPECT_EQ(replay.header("idempotent-replayed"), "true");
  restart_with("api", "PAYRAIL_COLLECTION_PROVIDER", "simulated");
}

// Every collection event reaches a subscribed endpoint over HTTPS, signed with its secret
// (verified independently with OpenSSL's HMAC), with the flat snapshot the contract names.
TEST_F(Collections, SignedWebhooksForEveryCollectionEvent) {
  const auto created_endpoint = http().post(
      "/v1/webhooks",
      R"({"url":")" + receiver_->url("/collections") +
          R"(","events":["collection.received","collection.settled","collection.failed","collection.expired","collection.cancelled"]})",
      with_key(org_.test_key));
  ASSERT_EQ(created_endpoint.status, 201) << created_endpoint.body;
  const std::string secret = created_endpoint.json()["secret"].GetString();
  const auto settled = create_id("100.00");
  const auto failed = create_id("5.00", "USD", "ach");
  const auto expired = create_id("6.00", "CAD", "eft");
  const auto cancelled = create_id("7.00");
  ASSERT_EQ(helper(settled, "receive").status, 202);
  ASSERT_EQ(helper(failed, "fail").status, 202);
  ASSERT_EQ(helper(expired, "expire").status, 202);
  ASSERT_EQ(cancel(cancelled).status, 200);
  // received + settled, received + failed, expired, cancelled.
  ASSERT_TRUE(receiver_->wait_for_requests(6, kDeliveryTimeout, "/collections"));
  std::map<std::string, std::set<std::string>> events_by_collection;
  for (const auto& request : receiver_->requests_for("/collections")) {
    const auto now_s =
        std::chrono::duration_cast<std::chrono::seconds>(request.received_at.time_since_epoch())
            .count();
    EXPECT_TRUE(
        verify_webhook_signature(request.header("service-signature"), secret, request.body, now_s));
    rapidjson::Document event;
    event.Parse(request.body.c_str());
    ASSERT_FALSE(event.HasParseError());
    EXPECT_EQ(request.header("service-event-id"), event["event_id"].GetString());
    EXPECT_STREQ(event["object"].GetString(), "collection");
    for (const auto* field : {"id", "status", "amount", "currency", "mode", "method", "created_at",
                              "settled_asset", "settled_amount", "sequence"}) {
      EXPECT_TRUE(event.HasMember(field)) << field;
    }
    const std::string type = event["event"].GetString();
    EXPECT_EQ(type, "collection." + std::string(event["status"].GetString()));
    if (type == "collection.settled") {
      EXPECT_STREQ(event["settled_asset"].GetString(), "USDC");
      EXPECT_STREQ(event["settled_amount"].GetString(), "71.428571");
    } else {
      EXPECT_TRUE(event["settled_amount"].IsNull()) << type;
    }
    events_by_collection[event["id"].GetString()].insert(type);
  }
  EXPECT_EQ(events_by_collection[settled],
            (std::set<std::string>{"collection.received", "collection.settled"}));
  EXPECT_EQ(events_by_collection[failed],
            (std::set<std::string>{"collection.received", "collection.failed"}));
  EXPECT_EQ(events_by_collection[expired], (std::set<std::string>{"collection.expired"}));
  EXPECT_EQ(events_by_collection[cancelled], (std::set<std::string>{"collection.cancelled"}));
}

// A test helper acts on the caller's own collections only. Organization B's /receive on its own
// collection with A's reference (as written, lower-cased, hyphenated) is B's unmatched payment,
// listed for operators under B: A's collection, balance and events are untouched, and A's own
// payment then settles it once.
TEST_F(Collections, AHelperNeverPaysAnotherOrganizationsCollection) {
  const auto victim = created("50.00", "CAD", "interac_etransfer");
  const std::string victim_id = victim["id"].GetString();
  const auto reference = reference_of(victim);
  const auto before = usdc();
  const auto intruder = stack_->create_organization();
  const auto own = create_collection(http(), intruder.test_key, "intruder-1",
                                     collection_body("50.00", "CAD", "interac_etransfer"));
  ASSERT_EQ(own.status, 201) << own.body;
  const std::string own_id = own.json()["id"].GetString();
  std::string lower = reference;
  for (auto& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string hyphenated = lower;
  hyphenated.insert(8, "-");
  hyphenated.insert(4, "-");
  for (const auto& typed : {reference, lower, hyphenated}) {
    ASSERT_EQ(collection_helper(http(), intruder.test_key, own_id, "receive",
                                R"({"reference":")" + typed + "\"}")
                  .status,
              202);
    EXPECT_EQ(wait_outcome("reference = '" + typed + "'", "unmatched_reference"),
              "unmatched_reference")
        << typed;
  }
  EXPECT_STREQ(get(victim_id).json()["status"].GetString(), "awaiting_payment");
  EXPECT_EQ(db().scalar("SELECT count(*) FROM events WHERE resource_id = '" + victim_id + "'"),
            "0");
  EXPECT_EQ(journal_entries(victim_id), 0);
  EXPECT_EQ(usdc(), before);
  const auto [code, output] = cli({"collection-exceptions", "--mode", "test"});
  ASSERT_EQ(code, 0) << output;
  for (const auto& typed : {reference, lower, hyphenated}) {
    EXPECT_NE(output.find("\t" + typed + "\t" + intruder.id + "\n"), std::string::npos)
        << typed << "\n"
        << output;
  }

  ASSERT_EQ(helper(victim_id, "receive").status, 202);
  ASSERT_EQ(wait(victim_id, kTerminal), "settled");
  EXPECT_EQ(journal_entries(victim_id), 1);
  EXPECT_STREQ(get(own_id, intruder.test_key).json()["status"].GetString(), "awaiting_payment");
}

// A payment recorded before a cancel wins, whatever the settlement worker's timing: with the
// worker stopped between the two calls, the cancel is refused while the payment waits to be
// applied, and the collection is then received and settled, never cancelled.
TEST_F(Collections, APaymentRecordedBeforeACancelIsReceivedNotLate) {
  const auto id = create_id("12.00");
  stack_->stop("settlement");
  ASSERT_EQ(helper(id, "receive").status, 202);
  const auto refused = cancel(id);
  stack_->start("settlement");
  EXPECT_EQ(refused.status, 409) << refused.body;
  EXPECT_EQ(refused.error_code(), "collection_not_cancelable");
  EXPECT_EQ(wait(id, kTerminal), "settled");
  EXPECT_EQ(event_count(db(), id, "collection.cancelled"), 0);
  EXPECT_EQ(db().scalar("SELECT string_agg(outcome, ',') FROM collection_provider_events WHERE "
                        "collection_id = '" +
                        id + "'"),
            "applied");
}

// /fail right after /receive fails the payment that was recorded; it never invents a second one.
TEST_F(Collections, FailRightAfterReceiveFailsThatPaymentAndNoOther) {
  const auto id = create_id("13.00");
  stack_->stop("settlement");
  ASSERT_EQ(helper(id, "receive", R"({"amount":"12.50"})").status, 202);
  const auto failed = helper(id, "fail", R"({"reason":"payment_returned"})");
  stack_->start("settlement");
  ASSERT_EQ(failed.status, 202) << failed.body;
  EXPECT_EQ(wait(id, kTerminal), "failed");
  EXPECT_EQ(db().scalar("SELECT string_agg(type || ':' || amount || ':' || outcome, ',' ORDER BY "
                        "arrival) FROM collection_provider_events WHERE collection_id = '" +
                        id + "'"),
            "payment_received:12.50:applied,payment_returned:12.50:applied");
  EXPECT_FALSE(get(id).json().HasMember("unapplied_payments"));
}

// Expire, then receive: the payment arrived after the deadline, so it is late even when the
// settlement worker applies it before the expiry worker runs.
TEST_F(Collections, APaymentAfterTheDeadlineIsLateWhicheverWorkerRunsFirst) {
  const auto before = usdc();
  const auto id = create_id("14.00");
  stack_->stop("settlement");
  stack_->stop("expiry");
  ASSERT_EQ(helper(id, "expire").status, 202);
  ASSERT_EQ(helper(id, "receive").status, 202);
  stack_->start("settlement");
  EXPECT_EQ(wait_outcome("collection_id = '" + id + "'", "late_payment"), "late_payment");
  stack_->start("expiry");
  EXPECT_EQ(wait(id, kTerminal), "expired");
  EXPECT_EQ(event_count(db(), id, "collection.expired"), 1);
  EXPECT_EQ(event_count(db(), id, "collection.received"), 0);
  EXPECT_EQ(usdc(), before);
}

// Receive, then expire: the payment arrived before the deadline, so it is received even when the
// expiry worker runs before the settlement worker (a sentinel expired by the same pass proves
// the pass ran after both deadlines).
TEST_F(Collections, APaymentBeforeTheDeadlineIsReceivedWhicheverWorkerRunsFirst) {
  const auto id = create_id("15.00");
  const auto sentinel = create_id("1.00");
  stack_->stop("settlement");
  stack_->stop("expiry");
  ASSERT_EQ(helper(id, "receive").status, 202);
  ASSERT_EQ(helper(id, "expire").status, 202);
  ASSERT_EQ(helper(sentinel, "expire").status, 202);
  stack_->start("expiry");
  EXPECT_EQ(wait(sentinel, kTerminal), "expired");
  EXPECT_STREQ(get(id).json()["status"].GetString(), "awaiting_payment");
  stack_->start("settlement");
  EXPECT_EQ(wait(id, kTerminal), "settled");
  EXPECT_EQ(event_count(db(), id, "collection.expired"), 0);
}

// Expiry is by database time: with the expiry worker's test-only clock offset just short of
// 72 hours a fresh collection stays unpaid (a sentinel expired by the same pass proves the pass
// ran), and just past 72 hours it expires, with its event. Declared last (gtest runs a file in
// order): the offset expires every unpaid test-mode collection of the stack.
TEST_F(Collections, ExpiresAtSeventyTwoHoursByDatabaseTime) {
  const auto collection = create_id();
  const auto sentinel = create_id();
  restart_with("expiry", "PAYRAIL_EXPIRY_TEST_CLOCK_OFFSET_S", std::to_string(72 * 3600 - 120));
  ASSERT_EQ(helper(sentinel, "expire").status, 202);
  ASSERT_EQ(wait(sentinel, kTerminal), "expired");
  EXPECT_STREQ(get(collection).json()["status"].GetString(), "awaiting_payment");
  restart_with("expiry", "PAYRAIL_EXPIRY_TEST_CLOCK_OFFSET_S", std::to_string(72 * 3600 + 60));
  EXPECT_EQ(wait(collection, kTerminal), "expired");
  EXPECT_EQ(event_count(db(), collection, "collection.expired"), 1);
  restart_with("expiry", "PAYRAIL_EXPIRY_TEST_CLOCK_OFFSET_S", "0");
}

}  // namespace
}  // namespace payrail::testing
