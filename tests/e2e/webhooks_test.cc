// Webhooks end to end: real binaries, real HTTPS receivers (trusted through
// PAYRAIL_WEBHOOK_CA_FILE), a compressed retry schedule (300ms, 600ms, 900ms: four attempts).
#include <gtest/gtest.h>

#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <set>
#include <thread>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/https_receiver.h"
#include "tests/support/ssrf_forms.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr auto kDeliveryTimeout = std::chrono::seconds(20);
constexpr auto kLongerThanSchedule = std::chrono::milliseconds(2500);  // 1.8 s + 10% jitter + slack

struct Endpoint {
  std::string id;
  std::string secret;
};

bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = kDeliveryTimeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return condition();
}

std::string json_array(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i ? ",\"" : "\"") + items[i] + "\"";
  return text + "]";
}

std::int64_t seconds_of(std::chrono::system_clock::time_point point) {
  return std::chrono::duration_cast<std::chrono::seconds>(point.time_since_epoch()).count();
}

class Webhooks : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    receiver_ = new HttpsReceiver();
    down_receiver_ = new HttpsReceiver();
    // One CA bundle with both certificates: the worker adds every one of them to its trust.
    bundle_path_ = receiver_->certificate_path() + ".bundle";
    std::ofstream bundle(bundle_path_);
    bundle << std::ifstream(receiver_->certificate_path()).rdbuf()
           << std::ifstream(down_receiver_->certificate_path()).rdbuf();
    bundle.close();
    stack_ = new TestStack({.env = {{"PAYRAIL_WEBHOOK_CA_FILE", bundle_path_},
                                    {"PAYRAIL_WEBHOOK_RETRY_SCHEDULE", "300ms,600ms,900ms"},
                                    {"PAYRAIL_WEBHOOK_TIMEOUT_MS", "3000"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete receiver_;
    delete down_receiver_;
    std::remove(bundle_path_.c_str());
  }

  static const HttpClient& http() { return stack_->http(); }

  static Endpoint create_endpoint(const std::string& key, const std::string& url,
                                  const std::vector<std::string>& events) {
    const auto response = http().post(
        "/v1/webhooks", R"({"url":")" + url + R"(","events":)" + json_array(events) + "}",
        with_key(key));
    EXPECT_EQ(response.status, 201) << response.body;
    if (response.status != 201) return {};
    auto json = response.json();
    return {json["id"].GetString(), json["secret"].GetString()};
  }

  static std::string create_payout(const std::string& key) {
    const auto address = "0x" + infra::crypto::hex_encode(infra::crypto::random_bytes(20));
    const auto response = http().post(
        "/v1/payouts",
        R"({"amount":"10.00","currency":"USDC","destination":{"network":"polygon","address":")" +
            address + R"("}})",
        with_key(key, {{"Idempotency-Key", infra::crypto::random_base62(16)}}));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.status == 201 ? response.json()["id"].GetString() : "";
  }

  static rapidjson::Document deliveries(const std::string& key, const std::string& endpoint_id) {
    const auto response =
        http().get("/v1/webhooks/" + endpoint_id + "/deliveries?limit=100", with_key(key));
    EXPECT_EQ(response.status, 200) << response.body;
    return response.json();
  }

  static std::string live_key(const TestOrganization& organization) {
    stack_->verify_business(organization);
    const auto response = http().post("/v1/api-keys", R"({"mode":"live"})",
                                      {{"Authorization", "Bearer " + organization.session},
                                       {"Payrail-Organization", organization.id}});
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["key"].GetString();
  }

  static TestStack* stack_;
  static HttpsReceiver* receiver_;
  static HttpsReceiver* down_receiver_;
  static std::string bundle_path_;
};
TestStack* Webhooks::stack_ = nullptr;
HttpsReceiver* Webhooks::receiver_ = nullptr;
HttpsReceiver* Webhooks::down_receiver_ = nullptr;
std::string Webhooks::bundle_path_;

// The three events of a completed payout arrive signed over the exact bytes of the event row's
// payload, with fresh timestamps and increasing sequences; a tampered body fails verification.
TEST_F(Webhooks, CompletedPayoutDeliversSignedEvents) {
  const auto organization = stack_->create_organization();
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/completed"),
                      {"payout.created", "payout.processing", "payout.completed"});
  const auto payout_id = create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(3, kDeliveryTimeout, "/completed"));
  std::map<std::string, int> sequence_by_type;
  for (const auto& request : receiver_->requests_for("/completed")) {
    const auto signature = request.header("service-signature");
    const auto now_s = seconds_of(request.received_at);
    EXPECT_TRUE(verify_webhook_signature(signature, endpoint.secret, request.body, now_s));
    EXPECT_LE(std::llabs(now_s - *signature_timestamp(signature)), 300);
    auto tampered = request.body;
    tampered.replace(tampered.find("10.00"), 5, "99.00");
    EXPECT_FALSE(verify_webhook_signature(signature, endpoint.secret, tampered, now_s));
    EXPECT_FALSE(verify_webhook_signature(signature, organization.test_key, request.body, now_s));
    EXPECT_EQ(request.header("content-type"), "application/json");
    EXPECT_EQ(request.header("user-agent"), std::string("payrail-webhooks/") + PAYRAIL_VERSION);
    const auto event_id = request.header("service-event-id");
    EXPECT_EQ(request.body, stack_->database().scalar("SELECT payload FROM events WHERE id = '" +
                                                      event_id + "'"));
    rapidjson::Document payload;
    payload.Parse(request.body.c_str());
    ASSERT_TRUE(payload.IsObject());
    EXPECT_EQ(std::string(payload["event_id"].GetString()), event_id);
    EXPECT_EQ(std::string(payload["id"].GetString()), payout_id);
    sequence_by_type[payload["event"].GetString()] = payload["sequence"].GetInt();
  }
  ASSERT_EQ(sequence_by_type.size(), 3u);
  EXPECT_LT(sequence_by_type["payout.created"], sequence_by_type["payout.processing"]);
  EXPECT_LT(sequence_by_type["payout.processing"], sequence_by_type["payout.completed"]);
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    int succeeded = 0;
    for (const auto& delivery : list["data"].GetArray()) {
      succeeded += std::string(delivery["status"].GetString()) == "succeeded";
    }
    return succeeded == 3;
  }));
  const auto list = deliveries(organization.test_key, endpoint.id);
  for (const auto& delivery : list["data"].GetArray()) {
    EXPECT_STREQ(delivery["object"].GetString(), "webhook_delivery");
    EXPECT_EQ(std::string(delivery["endpoint_id"].GetString()), endpoint.id);
    EXPECT_EQ(std::string(delivery["id"].GetString()).rfind("whd_", 0), 0u);
    EXPECT_EQ(delivery["attempt_count"].GetInt(), 1);
    EXPECT_TRUE(delivery["next_attempt_at"].IsNull());
    ASSERT_EQ(delivery["attempts"].Size(), 1u);
    EXPECT_EQ(delivery["attempts"][0]["number"].GetInt(), 1);
    EXPECT_EQ(delivery["attempts"][0]["status_code"].GetInt(), 200);
    EXPECT_TRUE(delivery["attempts"][0]["error"].IsNull());
    EXPECT_GE(delivery["attempts"][0]["latency_ms"].GetInt(), 0);
  }
  // Deliveries paginate like every list; the cursor must be a delivery of this endpoint.
  const auto path = "/v1/webhooks/" + endpoint.id + "/deliveries";
  const auto first = http().get(path + "?limit=2", with_key(organization.test_key)).json();
  ASSERT_EQ(first["data"].Size(), 2u);
  EXPECT_TRUE(first["has_more"].GetBool());
  const auto rest = http()
                        .get(path + "?starting_after=" + first["next_cursor"].GetString(),
                             with_key(organization.test_key))
                        .json();
  EXPECT_EQ(rest["data"].Size(), 1u);
  EXPECT_FALSE(rest["has_more"].GetBool());
  for (const auto& query :
       {std::string("?starting_after=whd_nothing"), std::string("?starting_after=") + endpoint.id,
        std::string("?limit=0"), std::string("?other=1")}) {
    const auto response = http().get(path + query, with_key(organization.test_key));
    EXPECT_EQ(response.status, 400) << query;
  }
}

// 500, 500, then 200: exactly three attempts, one success, no fourth; one event id throughout.
TEST_F(Webhooks, RetriesUntilSuccessThenStops) {
  const auto organization = stack_->create_organization();
  receiver_->plan({{500, 0}, {500, 0}}, "/retry");
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/retry"), {"payout.created"});
  create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(3, kDeliveryTimeout, "/retry"));
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    return list["data"].Size() == 1 &&
           std::string(list["data"][0]["status"].GetString()) == "succeeded";
  }));
  std::this_thread::sleep_for(kLongerThanSchedule);
  const auto requests = receiver_->requests_for("/retry");
  ASSERT_EQ(requests.size(), 3u);
  const auto event_id = requests[0].header("service-event-id");
  for (const auto& request : requests) {
    EXPECT_EQ(request.header("service-event-id"), event_id);
    EXPECT_EQ(request.body, requests[0].body);
    EXPECT_TRUE(verify_webhook_signature(request.header("service-signature"), endpoint.secret,
                                         request.body, seconds_of(request.received_at)));
  }
  const auto list = deliveries(organization.test_key, endpoint.id);
  const auto& delivery = list["data"][0];
  EXPECT_EQ(delivery["attempt_count"].GetInt(), 3);
  EXPECT_EQ(std::string(delivery["event_id"].GetString()), event_id);
  EXPECT_STREQ(delivery["event_type"].GetString(), "payout.created");
  ASSERT_EQ(delivery["attempts"].Size(), 3u);
  const int expected_codes[] = {500, 500, 200};
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(delivery["attempts"][i]["number"].GetInt(), i + 1);
    EXPECT_EQ(delivery["attempts"][i]["status_code"].GetInt(), expected_codes[i]);
  }
}

// A receiver that stays down: attempts stop at the schedule's end (3 delays: 4 attempts), failed.
TEST_F(Webhooks, ReceiverDownStopsAtTheEndOfTheSchedule) {
  const auto organization = stack_->create_organization();
  down_receiver_->set_down(true);
  const auto endpoint =
      create_endpoint(organization.test_key, down_receiver_->url("/down"), {"payout.created"});
  create_payout(organization.test_key);
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    return list["data"].Size() == 1 &&
           std::string(list["data"][0]["status"].GetString()) == "failed";
  }));
  std::this_thread::sleep_for(kLongerThanSchedule);
  const auto list = deliveries(organization.test_key, endpoint.id);
  const auto& delivery = list["data"][0];
  EXPECT_STREQ(delivery["status"].GetString(), "failed");
  EXPECT_EQ(delivery["attempt_count"].GetInt(), 4);
  EXPECT_TRUE(delivery["next_attempt_at"].IsNull());
  ASSERT_EQ(delivery["attempts"].Size(), 4u);
  for (const auto& attempt : delivery["attempts"].GetArray()) {
    EXPECT_TRUE(attempt["status_code"].IsNull());
    EXPECT_STREQ(attempt["error"].GetString(), "could not connect");
  }
  EXPECT_EQ(down_receiver_->connection_count(), 0u);
  down_receiver_->set_down(false);
}

// Deleting an endpoint stops its deliveries at once, queued retries included.
TEST_F(Webhooks, DeletedEndpointReceivesNothingAfterwards) {
  const auto organization = stack_->create_organization();
  receiver_->set_default_status(500, "/deleted");
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/deleted"),
                      {"payout.created", "payout.processing", "payout.completed"});
  create_payout(organization.test_key);
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    if (list["data"].Size() != 3) return false;
    for (const auto& delivery : list["data"].GetArray()) {
      if (delivery["attempt_count"].GetInt() < 1) return false;
    }
    return true;
  }));
  ASSERT_EQ(http().del("/v1/webhooks/" + endpoint.id, with_key(organization.test_key)).status, 204);
  std::this_thread::sleep_for(std::chrono::milliseconds(300));  // an attempt already in flight
  const auto received_at_delete = receiver_->requests_for("/deleted").size();
  create_payout(organization.test_key);
  std::this_thread::sleep_for(kLongerThanSchedule);
  EXPECT_EQ(receiver_->requests_for("/deleted").size(), received_at_delete);
  const auto list = deliveries(organization.test_key, endpoint.id);  // still observable
  EXPECT_EQ(list["data"].Size(), 3u);  // nothing new was scheduled for the deleted endpoint
  for (const auto& delivery : list["data"].GetArray()) {
    EXPECT_STREQ(delivery["status"].GetString(), "cancelled");
    EXPECT_TRUE(delivery["next_attempt_at"].IsNull());
  }
  const auto listed = http().get("/v1/webhooks", with_key(organization.test_key)).json();
  EXPECT_EQ(listed["data"].Size(), 0u);
  const auto again = http().del("/v1/webhooks/" + endpoint.id, with_key(organization.test_key));
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(again.error_code(), "resource_missing");
}

TEST_F(Webhooks, ForeignOrganizationCannotListDeleteOrReadIt) {
  const auto owner = stack_->create_organization();
  const auto stranger = stack_->create_organization();
  const auto endpoint =
      create_endpoint(owner.test_key, receiver_->url("/owner"), {"payout.created"});
  create_payout(owner.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(1, kDeliveryTimeout, "/owner"));
  const auto event_id = receiver_->requests_for("/owner")[0].header("service-event-id");
  const auto listed = http().get("/v1/webhooks", with_key(stranger.test_key)).json();
  EXPECT_EQ(listed["data"].Size(), 0u);
  for (const auto& response :
       {http().del("/v1/webhooks/" + endpoint.id, with_key(stranger.test_key)),
        http().get("/v1/webhooks/" + endpoint.id + "/deliveries", with_key(stranger.test_key)),
        http().post("/v1/events/" + event_id + "/redeliver", "", with_key(stranger.test_key))}) {
    EXPECT_EQ(response.status, 404) << response.body;
    EXPECT_EQ(response.error_code(), "resource_missing");
  }
  const auto events = http().get("/v1/events", with_key(stranger.test_key)).json();
  EXPECT_EQ(events["data"].Size(), 0u);
  // The owner's live mode is another world too.
  const auto live = live_key(owner);
  EXPECT_EQ(http().del("/v1/webhooks/" + endpoint.id, with_key(live)).status, 404);
  EXPECT_EQ(http().get("/v1/webhooks", with_key(live)).json()["data"].Size(), 0u);
  EXPECT_EQ(http().get("/v1/webhooks", with_key(owner.test_key)).json()["data"].Size(), 1u);
}

// Live mode refuses every SSRF form at registration; test mode allows them only because the
// operator setting is on in this stack.
TEST_F(Webhooks, LiveModeRejectsEverySsrfForm) {
  const auto organization = stack_->create_organization();
  const auto live = live_key(organization);
  for (const char* url : kForbiddenWebhookUrls) {
    const auto response = http().post(
        "/v1/webhooks", R"({"url":")" + std::string(url) + R"(","events":["payout.completed"]})",
        with_key(live));
    EXPECT_EQ(response.status, 400) << url << " " << response.body;
    EXPECT_EQ(response.error_code(), "bad_request") << url;
    EXPECT_EQ(response.error_param(), "url") << url;
  }
  // A global address is accepted in live mode (registration sends nothing).
  const auto accepted = create_endpoint(live, "https://93.184.216.34/hooks", {"payout.completed"});
  EXPECT_EQ(http().del("/v1/webhooks/" + accepted.id, with_key(live)).status, 204);
  create_endpoint(organization.test_key, "https://127.0.0.1:9/hooks", {"payout.completed"});
}

TEST_F(Webhooks, ReadScopeCannotWrite) {
  const auto organization = stack_->create_organization();
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/scopes"), {"payout.created"});
  const auto key_with = [&](const std::string& scopes) {
    const auto response = http().post("/v1/api-keys", R"({"mode":"test","scopes":)" + scopes + "}",
                                      with_key(organization.test_key));
    EXPECT_EQ(response.status, 201) << response.body;
    return std::string(response.json()["key"].GetString());
  };
  const auto reader = key_with(R"(["webhooks:read"])");
  const auto body = R"({"url":")" + receiver_->url("/scopes") + R"(","events":["payout.created"]})";
  for (const auto& response : {http().post("/v1/webhooks", body, with_key(reader)),
                               http().del("/v1/webhooks/" + endpoint.id, with_key(reader)),
                               http().post("/v1/events/evt_x/redeliver", "", with_key(reader))}) {
    EXPECT_EQ(response.status, 403) << response.body;
    EXPECT_EQ(response.error_code(), "scope_insufficient");
  }
  EXPECT_EQ(http().get("/v1/webhooks", with_key(reader)).status, 200);
  EXPECT_EQ(http().get("/v1/events", with_key(reader)).status, 200);
  EXPECT_EQ(http().get("/v1/webhooks/" + endpoint.id + "/deliveries", with_key(reader)).status,
            200);
  const auto outsider = key_with(R"(["payouts:read"])");
  EXPECT_EQ(http().get("/v1/webhooks", with_key(outsider)).error_code(), "scope_insufficient");
  EXPECT_EQ(http().get("/v1/events", with_key(outsider)).error_code(), "scope_insufficient");
}

TEST_F(Webhooks, CreateValidatesUrlAndEvents) {
  const auto organization = stack_->create_organization();
  const auto post = [&](const std::string& body) {
    return http().post("/v1/webhooks", body, with_key(organization.test_key));
  };
  const auto url = receiver_->url("/validation");
  const std::vector<std::pair<std::string, std::string>> cases{
      {R"({"url":"http://example.com/","events":["payout.created"]})", "url"},
      {R"({"url":"https://","events":["payout.created"]})", "url"},
      {R"({"url":"https://example.com/)" + std::string(2040, 'a') +
           R"(","events":["payout.created"]})",
       "url"},
      {R"({"url":7,"events":["payout.created"]})", "url"},
      {R"({"events":["payout.created"]})", "url"},
      {R"({"url":")" + url + R"(","events":[]})", "events"},
      {R"({"url":")" + url + R"("})", "events"},
      {R"({"url":")" + url + R"(","events":"payout.created"})", "events"},
      {R"({"url":")" + url + R"(","events":["payout.created","payout.exploded"]})", "events.1"},
      {R"({"url":")" + url + R"(","events":["payout.created",3]})", "events.1"},
      {R"({"url":")" + url + R"(","events":)" +
           json_array(std::vector<std::string>(33, "payout.created")) + "}",
       "events"},
      {R"({"url":")" + url + R"(","events":["payout.created"],"secret":"mine"})", "secret"},
  };
  for (const auto& [body, param] : cases) {
    const auto response = post(body);
    EXPECT_EQ(response.status, 400) << body << " " << response.body;
    EXPECT_EQ(response.error_code(), "bad_request") << body;
    EXPECT_EQ(response.error_param(), param) << body;
  }
  const auto created = post(R"({"url":")" + url +
                            R"(","events":["payout.created","collection.settled",)"
                            R"("payout.created","fiat_payout.cancelled"]})");
  ASSERT_EQ(created.status, 201) << created.body;
  auto json = created.json();
  EXPECT_STREQ(json["object"].GetString(), "webhook_endpoint");
  EXPECT_EQ(std::string(json["id"].GetString()).rfind("whe_", 0), 0u);
  EXPECT_EQ(std::string(json["url"].GetString()), url);
  ASSERT_EQ(json["events"].Size(), 3u);  // the duplicate is removed
  EXPECT_STREQ(json["events"][1].GetString(), "collection.settled");
  EXPECT_TRUE(json["active"].GetBool());
  EXPECT_EQ(std::string(json["created_at"].GetString()).back(), 'Z');
  const std::string secret = json["secret"].GetString();
  EXPECT_EQ(secret.rfind("whsec_", 0), 0u);
  EXPECT_GE(secret.size(), 6u + 33u);
  // Stored sealed: the secret is nowhere in the database in clear.
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM webhook_endpoints WHERE "
                                      "position(convert_to('" +
                                      secret + "', 'UTF8') IN secret_ciphertext) > 0"),
            "0");
}

TEST_F(Webhooks, ListsNewestFirstWithoutSecretsAndPaginates) {
  const auto organization = stack_->create_organization();
  std::vector<std::string> ids;
  for (int i = 0; i < 3; ++i) {
    ids.push_back(
        create_endpoint(organization.test_key, receiver_->url("/list"), {"payout.failed"}).id);
    std::this_thread::sleep_for(std::chrono::milliseconds(1100));  // distinct created_at seconds
  }
  const auto first = http().get("/v1/webhooks?limit=2", with_key(organization.test_key)).json();
  ASSERT_EQ(first["data"].Size(), 2u);
  EXPECT_TRUE(first["has_more"].GetBool());
  EXPECT_EQ(std::string(first["data"][0]["id"].GetString()), ids[2]);
  EXPECT_EQ(std::string(first["data"][1]["id"].GetString()), ids[1]);
  for (const auto& endpoint : first["data"].GetArray()) EXPECT_FALSE(endpoint.HasMember("secret"));
  const auto second = http()
                          .get("/v1/webhooks?limit=2&starting_after=" +
                                   std::string(first["next_cursor"].GetString()),
                               with_key(organization.test_key))
                          .json();
  ASSERT_EQ(second["data"].Size(), 1u);
  EXPECT_EQ(std::string(second["data"][0]["id"].GetString()), ids[0]);
  EXPECT_FALSE(second["has_more"].GetBool());
  EXPECT_TRUE(second["next_cursor"].IsNull());
  EXPECT_EQ(http()
                .get("/v1/webhooks?starting_after=whe_nope", with_key(organization.test_key))
                .error_param(),
            "starting_after");
}

TEST_F(Webhooks, SeventeenthEndpointIsRejected) {
  const auto organization = stack_->create_organization();
  std::vector<std::string> ids;
  for (int i = 0; i < 16; ++i) {
    ids.push_back(
        create_endpoint(organization.test_key, receiver_->url("/limit"), {"collection.expired"})
            .id);
  }
  const auto body =
      R"({"url":")" + receiver_->url("/limit") + R"(","events":["collection.expired"]})";
  const auto rejected = http().post("/v1/webhooks", body, with_key(organization.test_key));
  EXPECT_EQ(rejected.status, 409);
  EXPECT_EQ(rejected.error_code(), "resource_limit_reached");
  ASSERT_EQ(http().del("/v1/webhooks/" + ids[0], with_key(organization.test_key)).status, 204);
  EXPECT_EQ(http().post("/v1/webhooks", body, with_key(organization.test_key)).status, 201);
  // The limit is per mode: live mode has its own sixteen.
  EXPECT_EQ(
      http()
          .post("/v1/webhooks", R"({"url":"https://93.184.216.34/","events":["payout.failed"]})",
                with_key(live_key(organization)))
          .status,
      201);
}

TEST_F(Webhooks, EventsListFiltersByType) {
  const auto organization = stack_->create_organization();
  const auto payout_id = create_payout(organization.test_key);
  ASSERT_TRUE(eventually([&] {
    return http()
               .get("/v1/events?type=payout.completed", with_key(organization.test_key))
               .json()["data"]
               .Size() == 1;
  }));
  const auto completed =
      http().get("/v1/events?type=payout.completed", with_key(organization.test_key)).json();
  const auto& event = completed["data"][0];
  EXPECT_STREQ(event["object"].GetString(), "event");
  EXPECT_STREQ(event["type"].GetString(), "payout.completed");
  EXPECT_EQ(std::string(event["resource_id"].GetString()), payout_id);
  EXPECT_EQ(event["sequence"].GetInt(), 3);
  EXPECT_EQ(std::string(event["payload"]["event_id"].GetString()), event["id"].GetString());
  EXPECT_STREQ(event["payload"]["event"].GetString(), "payout.completed");
  EXPECT_STREQ(event["payload"]["status"].GetString(), "completed");
  EXPECT_EQ(event["payload"]["sequence"].GetInt(), 3);
  const auto all = http().get("/v1/events?limit=2", with_key(organization.test_key)).json();
  ASSERT_EQ(all["data"].Size(), 2u);
  EXPECT_TRUE(all["has_more"].GetBool());
  const auto rest =
      http()
          .get("/v1/events?starting_after=" + std::string(all["next_cursor"].GetString()),
               with_key(organization.test_key))
          .json();
  EXPECT_EQ(rest["data"].Size(), 1u);
  const auto unknown =
      http().get("/v1/events?type=payout.exploded", with_key(organization.test_key));
  EXPECT_EQ(unknown.status, 400);
  EXPECT_EQ(unknown.error_param(), "type");
  EXPECT_EQ(http().get("/v1/events?colour=red", with_key(organization.test_key)).error_param(),
            "colour");
}

// A redelivery gives a delivered event a new successful attempt, and reaches an endpoint created
// after the event too.
TEST_F(Webhooks, RedeliverProducesANewSuccessfulAttempt) {
  const auto organization = stack_->create_organization();
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/redeliver"), {"payout.created"});
  create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(1, kDeliveryTimeout, "/redeliver"));
  const auto event_id = receiver_->requests_for("/redeliver")[0].header("service-event-id");
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    return std::string(list["data"][0]["status"].GetString()) == "succeeded";
  }));
  const auto late =
      create_endpoint(organization.test_key, receiver_->url("/redeliver-late"), {"payout.created"});
  const auto response =
      http().post("/v1/events/" + event_id + "/redeliver", "", with_key(organization.test_key));
  ASSERT_EQ(response.status, 202) << response.body;
  EXPECT_EQ(std::string(response.json()["id"].GetString()), event_id);
  EXPECT_STREQ(response.json()["object"].GetString(), "event");
  ASSERT_TRUE(receiver_->wait_for_requests(2, kDeliveryTimeout, "/redeliver"));
  ASSERT_TRUE(receiver_->wait_for_requests(1, kDeliveryTimeout, "/redeliver-late"));
  const auto again = receiver_->requests_for("/redeliver")[1];
  EXPECT_EQ(again.header("service-event-id"), event_id);
  EXPECT_TRUE(verify_webhook_signature(again.header("service-signature"), endpoint.secret,
                                       again.body, seconds_of(again.received_at)));
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    return list["data"][0]["attempt_count"].GetInt() == 2 &&
           std::string(list["data"][0]["status"].GetString()) == "succeeded";
  }));
  const auto list = deliveries(organization.test_key, endpoint.id);
  ASSERT_EQ(list["data"][0]["attempts"].Size(), 2u);
  EXPECT_EQ(list["data"][0]["attempts"][1]["status_code"].GetInt(), 200);
  EXPECT_EQ(deliveries(organization.test_key, late.id)["data"].Size(), 1u);
  EXPECT_EQ(
      http().post("/v1/events/evt_nothing/redeliver", "", with_key(organization.test_key)).status,
      404);
  EXPECT_EQ(http()
                .post("/v1/events/" + event_id + "/redeliver", R"({"x":1})",
                      with_key(organization.test_key))
                .status,
            400);
}

// A redelivery asked for while an attempt is in flight is not absorbed by that attempt: another
// attempt follows, started after the request.
TEST_F(Webhooks, RedeliverDuringAnAttemptInFlightSendsAgain) {
  const auto organization = stack_->create_organization();
  receiver_->plan({{200, 1500}}, "/inflight");
  const auto endpoint =
      create_endpoint(organization.test_key, receiver_->url("/inflight"), {"payout.created"});
  create_payout(organization.test_key);
  ASSERT_TRUE(receiver_->wait_for_requests(1, kDeliveryTimeout, "/inflight"));
  const auto event_id = receiver_->requests_for("/inflight")[0].header("service-event-id");
  const auto requested_at = std::chrono::system_clock::now();
  ASSERT_EQ(http()
                .post("/v1/events/" + event_id + "/redeliver", "", with_key(organization.test_key))
                .status,
            202);
  ASSERT_TRUE(receiver_->wait_for_requests(2, kDeliveryTimeout, "/inflight"));
  EXPECT_GT(receiver_->requests_for("/inflight")[1].received_at, requested_at);
  ASSERT_TRUE(eventually([&] {
    const auto list = deliveries(organization.test_key, endpoint.id);
    return list["data"][0]["attempt_count"].GetInt() == 2 &&
           std::string(list["data"][0]["status"].GetString()) == "succeeded";
  }));
  std::this_thread::sleep_for(kLongerThanSchedule);
  EXPECT_EQ(receiver_->requests_for("/inflight").size(), 2u);
}

}  // namespace
}  // namespace payrail::testing
