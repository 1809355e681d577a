// Business verification and the organization lifecycle, over HTTP and through the operator CLI
// (docs/going-live.md): POST/GET /v1/kyb with validation, scopes, sessions and isolation; the
// review queue pending -> in_review -> verified | rejected with its audit trail; a verified
// business gets a live key and a live payout reaches the documented 503 with nothing held; a
// rejected one submits again; a suspended organization is refused on every key request until an
// operator reinstates it. One stack (API, broker, database; no workers) for the whole file.
#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <set>
#include <thread>

#include "api/handlers/handlers.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

const std::regex kTimestamp(R"(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z)");
constexpr const char* kOperator = "ops-reviewer";

class Kyb : public ::testing::Test {
 protected:
  // No chain adapter is configured (the default): live payouts answer 503 provider_unavailable.
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {}}); }
  static void TearDownTestSuite() { delete stack_; }
  static const HttpClient& http() { return stack_->http(); }

  static HttpResult submit(const std::string& api_key, const std::string& body) {
    return http().post("/v1/kyb", body, with_key(api_key));
  }
  static Headers owner_session(const TestOrganization& organization) {
    return with_session(organization.session, {{"Payrail-Organization", organization.id}});
  }
  static std::pair<int, std::string> review(const std::string& submission, const std::string& to,
                                            const std::string& notes = "") {
    std::vector<std::string> arguments{"kyb-review", "--submission", submission, "--to",
                                       to,           "--operator",   kOperator};
    if (!notes.empty()) arguments.insert(arguments.end(), {"--notes", notes});
    return stack_->cli(arguments);
  }
  static std::string organization_field(const std::string& api_key, const char* field) {
    const auto response = http().get("/v1/organization", with_key(api_key));
    EXPECT_TRUE(has_status(response, 200));
    return response.json()[field].GetString();
  }
  static rapidjson::Document submissions(const std::string& api_key,
                                         const std::string& query = "") {
    const auto response = http().get("/v1/kyb" + query, with_key(api_key));
    EXPECT_TRUE(has_status(response, 200)) << response.body;
    return response.json();
  }
  static HttpResult live_key(const TestOrganization& organization) {
    return http().post("/v1/api-keys", R"({"mode":"live"})", owner_session(organization));
  }

  inline static TestStack* stack_ = nullptr;
};

void expect_submitted_content(const rapidjson::Value& submission) {
  EXPECT_STREQ(submission["object"].GetString(), "kyb_submission");
  EXPECT_STREQ(submission["legal_name"].GetString(), "Test Org Ltd");
  EXPECT_STREQ(submission["registration_no"].GetString(), "BC1234567");
  EXPECT_STREQ(submission["incorporation_country"].GetString(), "CA");
  const auto& owners = submission["beneficial_owners"];
  ASSERT_EQ(owners.Size(), 2u);
  EXPECT_STREQ(owners[0]["name"].GetString(), "Ada Lovelace");
  EXPECT_STREQ(owners[0]["dob"].GetString(), "1985-12-10");
  EXPECT_STREQ(owners[0]["ownership_pct"].GetString(), "60");
  EXPECT_STREQ(owners[0]["country"].GetString(), "GB");
  EXPECT_STREQ(owners[1]["name"].GetString(), "Grace Hopper");
  EXPECT_STREQ(owners[1]["ownership_pct"].GetString(), "25.5");  // sent as a JSON number
  const auto& documents = submission["documents"];
  ASSERT_EQ(documents.Size(), 2u);
  EXPECT_STREQ(documents[0]["type"].GetString(), "certificate_of_incorporation");
  EXPECT_STREQ(documents[0]["reference"].GetString(), "doc-001");
  EXPECT_STREQ(documents[1]["type"].GetString(), "proof_of_address");
  EXPECT_TRUE(std::regex_match(submission["created_at"].GetString(), kTimestamp));
}

TEST_F(Kyb, SubmitIsPendingAndASecondSubmitIsRefused) {
  const auto organization = stack_->create_organization();
  const auto created = submit(organization.test_key, kyb_submission_body());
  ASSERT_TRUE(has_status(created, 201)) << created.body;
  const auto submission = created.json();
  const std::string id = submission["id"].GetString();
  EXPECT_TRUE(std::regex_match(id, std::regex("kyb_[0-9A-Za-z]{24}"))) << id;
  EXPECT_EQ(std::string(submission["org_id"].GetString()), organization.id);
  EXPECT_STREQ(submission["status"].GetString(), "pending");
  expect_submitted_content(submission);
  EXPECT_FALSE(submission.HasMember("review_notes"));
  EXPECT_FALSE(submission.HasMember("reviewed_at"));
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "pending");

  // One open submission at a time, whoever sends it.
  EXPECT_TRUE(is_error(submit(organization.test_key, kyb_submission_body()), 409, "kyb_in_review"));
  EXPECT_TRUE(is_error(http().post("/v1/kyb", kyb_submission_body(), owner_session(organization)),
                       409, "kyb_in_review"));

  const auto listed = submissions(organization.test_key);
  EXPECT_STREQ(listed["object"].GetString(), "list");
  ASSERT_EQ(listed["data"].Size(), 1u);
  EXPECT_EQ(std::string(listed["data"][0]["id"].GetString()), id);
  expect_submitted_content(listed["data"][0]);
  EXPECT_FALSE(listed["has_more"].GetBool());
  EXPECT_TRUE(listed["next_cursor"].IsNull());
}

TEST_F(Kyb, ConcurrentSubmitsCreateExactlyOne) {
  const auto organization = stack_->create_organization();
  constexpr int kRequests = 8;
  std::vector<int> statuses(kRequests, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < kRequests; ++i) {
    threads.emplace_back(
        [&, i] { statuses[i] = submit(organization.test_key, kyb_submission_body()).status; });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 201), 1);
  EXPECT_EQ(std::count(statuses.begin(), statuses.end(), 409), kRequests - 1);
  EXPECT_EQ(submissions(organization.test_key)["data"].Size(), 1u);
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM resource_transitions WHERE "
                                      "resource_type = 'organization_kyb_status' AND "
                                      "resource_id = '" +
                                      organization.id + "' AND trigger = 'submit'"),
            "1");
}

TEST_F(Kyb, PersonalDataIsSealedAtRestAndNeverLogged) {
  const auto organization = stack_->create_organization();
  ASSERT_TRUE(has_status(submit(organization.test_key, kyb_submission_body()), 201));
  const auto& database = stack_->database();
  const std::string owners_of =
      " FROM kyb_beneficial_owners o JOIN kyb_submissions s ON s.id = o.submission_id "
      "WHERE s.org_id = '" +
      organization.id + "'";
  EXPECT_EQ(database.scalar("SELECT count(*)" + owners_of), "2");
  for (const std::string secret : {"Ada Lovelace", "1985-12-10", "Grace Hopper", "1956-12-09"}) {
    EXPECT_EQ(database.scalar("SELECT count(*)" + owners_of + " AND (position(convert_to('" +
                              secret + "', 'UTF8') in o.name_sealed) > 0 OR position(convert_to('" +
                              secret + "', 'UTF8') in o.dob_sealed) > 0)"),
              "0")
        << secret;
    EXPECT_EQ(stack_->process("api").log().find(secret), std::string::npos) << secret;
  }
}

TEST_F(Kyb, EveryInvalidFieldIsRefusedWithItsParam) {
  const auto organization = stack_->create_organization();
  const std::string owner =
      R"({"name":"Ada Lovelace","dob":"1985-12-10","ownership_pct":"60","country":"GB"})";
  const std::string document = R"({"type":"proof_of_address","reference":"doc-1"})";
  const auto body = [](const std::string& legal_name, const std::string& registration_no,
                       const std::string& country, const std::string& owners,
                       const std::string& documents) {
    return R"({"legal_name":")" + legal_name + R"(","registration_no":")" + registration_no +
           R"(","incorporation_country":")" + country + R"(","beneficial_owners":[)" + owners +
           R"(],"documents":[)" + documents + "]}";
  };
  const auto owner_with = [](const std::string& dob, const std::string& pct,
                             const std::string& country, const std::string& name = "Ada") {
    return R"({"name":")" + name + R"(","dob":")" + dob + R"(","ownership_pct":)" + pct +
           R"(,"country":")" + country + R"("})";
  };
  const std::vector<std::pair<std::string, std::string>> cases{
      {body("", "BC1", "CA", owner, document), "legal_name"},
      {body(std::string(201, 'a'), "BC1", "CA", owner, document), "legal_name"},
      {body("Acme", "", "CA", owner, document), "registration_no"},
      {body("Acme", std::string(101, '1'), "CA", owner, document), "registration_no"},
      {body("Acme", "BC1", "XX", owner, document), "incorporation_country"},
      {body("Acme", "BC1", "CA", "", document), "beneficial_owners"},
      {body("Acme", "BC1", "CA", owner_with("1985-12-10", "10", "CA", ""), document),
       "beneficial_owners.0.name"},
      {body("Acme", "BC1", "CA", owner + "," + owner_with("2999-01-01", "10", "CA"), document),
       "beneficial_owners.1.dob"},
      {body("Acme", "BC1", "CA", owner_with("1985-02-30", "10", "CA"), document),
       "beneficial_owners.0.dob"},
      {body("Acme", "BC1", "CA", owner_with("1985-12-10", "\"100.5\"", "CA"), document),
       "beneficial_owners.0.ownership_pct"},
      {body("Acme", "BC1", "CA", owner_with("1985-12-10", "12.345", "CA"), document),
       "beneficial_owners.0.ownership_pct"},
      {body("Acme", "BC1", "CA", owner_with("1985-12-10", "10", "ZZ"), document),
       "beneficial_owners.0.country"},
      {body("Acme", "BC1", "CA", owner + "," + owner, document), "beneficial_owners"},
      {body("Acme", "BC1", "CA", owner, ""), "documents"},
      {body("Acme", "BC1", "CA", owner, R"({"type":"passport","reference":"r"})"),
       "documents.0.type"},
      {body("Acme", "BC1", "CA", owner, R"({"type":"government_id","reference":""})"),
       "documents.0.reference"},
      {R"({"legal_name":"Acme"})", "registration_no"},
      {R"({"legal_name":"Acme","tax_id":"1"})", "tax_id"},
  };
  for (const auto& [text, param] : cases) {
    EXPECT_TRUE(is_error(submit(organization.test_key, text), 400, "bad_request", param)) << text;
  }
  // Nothing was created by any of them.
  EXPECT_EQ(submissions(organization.test_key)["data"].Size(), 0u);
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "unverified");
}

TEST_F(Kyb, ScopesAndTheOwnersSession) {
  const auto organization = stack_->create_organization();
  const auto key_with = [&](const std::string& scope) {
    const auto response =
        http().post("/v1/api-keys", R"({"mode":"test","scopes":[")" + scope + R"("]})",
                    with_key(organization.test_key));
    EXPECT_TRUE(has_status(response, 201));
    return std::string(response.json()["key"].GetString());
  };
  const auto reader = key_with("organization:read");
  const auto writer = key_with("organization:write");
  EXPECT_TRUE(is_error(submit(reader, kyb_submission_body()), 403, "scope_insufficient"));
  EXPECT_TRUE(is_error(http().get("/v1/kyb", with_key(writer)), 403, "scope_insufficient"));

  // A session must name an organization its subject owns.
  EXPECT_TRUE(
      is_error(http().post("/v1/kyb", kyb_submission_body(), with_session(organization.session)),
               400, "bad_request", "Payrail-Organization"));
  const auto stranger = stack_->dev_session(unique_email("stranger"));
  EXPECT_TRUE(
      is_error(http().post("/v1/kyb", kyb_submission_body(),
                           with_session(stranger, {{"Payrail-Organization", organization.id}})),
               404, "resource_missing"));
  // Listing is for API keys only.
  EXPECT_TRUE(is_error(http().get("/v1/kyb", owner_session(organization)), 401, "api_key_invalid"));

  const auto by_owner = http().post("/v1/kyb", kyb_submission_body(), owner_session(organization));
  ASSERT_TRUE(has_status(by_owner, 201));
  EXPECT_TRUE(has_status(submit(writer, kyb_submission_body()), 409));
  const auto listed = submissions(reader);
  ASSERT_EQ(listed["data"].Size(), 1u);
  EXPECT_STREQ(listed["data"][0]["id"].GetString(), by_owner.json()["id"].GetString());
}

TEST_F(Kyb, OrganizationsNeverSeeEachOthersSubmissions) {
  const auto alpha = stack_->create_organization();
  const auto beta = stack_->create_organization();
  const auto created = submit(alpha.test_key, kyb_submission_body("Alpha Ltd"));
  ASSERT_TRUE(has_status(created, 201));
  const std::string alpha_id = created.json()["id"].GetString();
  EXPECT_EQ(submissions(beta.test_key)["data"].Size(), 0u);
  EXPECT_TRUE(is_error(http().get("/v1/kyb?starting_after=" + alpha_id, with_key(beta.test_key)),
                       400, "bad_request", "starting_after"));
  EXPECT_EQ(organization_field(beta.test_key, "kyb_status"), "unverified");
  // Beta submits on its own; neither changes the other.
  ASSERT_TRUE(has_status(submit(beta.test_key, kyb_submission_body("Beta Ltd")), 201));
  const auto alpha_list = submissions(alpha.test_key);
  ASSERT_EQ(alpha_list["data"].Size(), 1u);
  EXPECT_EQ(std::string(alpha_list["data"][0]["id"].GetString()), alpha_id);
  EXPECT_STREQ(alpha_list["data"][0]["legal_name"].GetString(), "Alpha Ltd");
  // The operator's queue names each organization's own submission.
  const auto [code, queue] = stack_->cli({"kyb-list", "--status", "pending", "--org", beta.id});
  ASSERT_EQ(code, 0) << queue;
  EXPECT_EQ(queue.find(alpha_id), std::string::npos);
  EXPECT_NE(queue.find("Beta Ltd"), std::string::npos);
}

TEST_F(Kyb, ReviewToVerifiedOpensLiveModeAndALivePayoutIsProviderUnavailable) {
  const auto organization = stack_->create_organization();
  EXPECT_TRUE(is_error(live_key(organization), 403, "kyb_required"));
  const auto created = submit(organization.test_key, kyb_submission_body());
  ASSERT_TRUE(has_status(created, 201));
  const std::string id = created.json()["id"].GetString();

  const auto [listed, queue] = stack_->cli({"kyb-list", "--status", "pending"});
  ASSERT_EQ(listed, 0) << queue;
  EXPECT_NE(queue.find(id + "\t" + organization.id + "\tpending"), std::string::npos) << queue;
  const auto [shown, details] = stack_->cli({"kyb-show", "--submission", id});
  ASSERT_EQ(shown, 0) << details;
  EXPECT_NE(details.find("Ada Lovelace\t1985-12-10\t60%\tGB"), std::string::npos) << details;

  // The table decides: no decision straight from pending, no notes on taking it into review.
  EXPECT_NE(review(id, "verified").first, 0);
  EXPECT_NE(review(id, "in_review", "looking").first, 0);
  EXPECT_NE(review("kyb_doesnotexist", "in_review").first, 0);
  ASSERT_EQ(review(id, "in_review").first, 0);
  EXPECT_STREQ(submissions(organization.test_key)["data"][0]["status"].GetString(), "in_review");
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "pending");
  EXPECT_TRUE(is_error(submit(organization.test_key, kyb_submission_body()), 409, "kyb_in_review"));
  EXPECT_TRUE(is_error(live_key(organization), 403, "kyb_required"));

  const auto [verified, verified_output] = review(id, "verified", "Registry and documents match");
  ASSERT_EQ(verified, 0) << verified_output;
  const auto reviewed = submissions(organization.test_key);
  const auto& submission = reviewed["data"][0];
  EXPECT_STREQ(submission["status"].GetString(), "verified");
  EXPECT_STREQ(submission["review_notes"].GetString(), "Registry and documents match");
  EXPECT_TRUE(std::regex_match(submission["reviewed_at"].GetString(), kTimestamp));
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "verified");
  EXPECT_TRUE(
      is_error(submit(organization.test_key, kyb_submission_body()), 409, "kyb_already_verified"));
  EXPECT_NE(review(id, "rejected", "changed my mind").first, 0) << "verified is final";

  // Live mode: a live key, which sees the organization's submissions too.
  const auto key = live_key(organization);
  ASSERT_TRUE(has_status(key, 201));
  const std::string live = key.json()["key"].GetString();
  EXPECT_EQ(submissions(live)["data"].Size(), 1u);
  const auto payout = create_payout(http(), live, "first-live-payout",
                                    payout_body("10.00", "USDC", "polygon", random_evm_address()));
  EXPECT_TRUE(is_error(payout, 503, "provider_unavailable"));
  const auto& database = stack_->database();
  EXPECT_EQ(balance_of(database, organization.id, "live", "USDC"), "0/0");
  EXPECT_EQ(
      database.scalar("SELECT count(*) FROM payouts WHERE org_id = '" + organization.id + "'"),
      "0");
  EXPECT_EQ(database.scalar("SELECT count(*) FROM idempotency_keys WHERE org_id = '" +
                            organization.id + "'"),
            "0");
}

TEST_F(Kyb, EveryReviewStepIsInTheAuditTrail) {
  const auto organization = stack_->create_organization();
  const auto id = stack_->verify_business(organization);
  const auto [code, trail] = stack_->cli({"audit-log", "--org", organization.id});
  ASSERT_EQ(code, 0) << trail;
  for (const std::string action : {"kyb.submitted", "kyb.in_review", "kyb.verified"}) {
    EXPECT_NE(trail.find(action + "\t" + organization.id + "\tkyb_submission " + id),
              std::string::npos)
        << action << "\n"
        << trail;
  }
  EXPECT_NE(trail.find("test-operator\tkyb.verified"), std::string::npos) << trail;
  const auto& database = stack_->database();
  EXPECT_EQ(database.scalar("SELECT string_agg(coalesce(from_status, '-') || '>' || to_status || "
                            "'@' || actor, ',' ORDER BY id) FROM resource_transitions WHERE "
                            "resource_id = '" +
                            id + "'"),
            "->pending@" +
                database.scalar("SELECT owner_subject FROM organizations WHERE id = '" +
                                organization.id + "'") +
                ",pending>in_review@test-operator,in_review>verified@test-operator");
  EXPECT_EQ(database.scalar("SELECT string_agg(coalesce(from_status, '-') || '>' || to_status, ',' "
                            "ORDER BY id) FROM resource_transitions WHERE resource_type = "
                            "'organization_kyb_status' AND resource_id = '" +
                            organization.id + "'"),
            "->unverified,unverified>pending,pending>verified");
}

TEST_F(Kyb, ARejectedBusinessSubmitsAgain) {
  const auto organization = stack_->create_organization();
  const auto first = submit(organization.test_key, kyb_submission_body("First Try Ltd"));
  ASSERT_TRUE(has_status(first, 201));
  const std::string first_id = first.json()["id"].GetString();
  ASSERT_EQ(review(first_id, "in_review").first, 0);
  EXPECT_NE(review(first_id, "rejected").first, 0) << "a rejection needs notes";
  const auto [rejected, output] = review(first_id, "rejected", "Registration number not found");
  ASSERT_EQ(rejected, 0) << output;
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "rejected");
  EXPECT_TRUE(is_error(live_key(organization), 403, "kyb_required"));

  const auto second = submit(organization.test_key, kyb_submission_body("Second Try Ltd"));
  ASSERT_TRUE(has_status(second, 201));
  const std::string second_id = second.json()["id"].GetString();
  EXPECT_EQ(organization_field(organization.test_key, "kyb_status"), "pending");

  const auto listed = submissions(organization.test_key);
  ASSERT_EQ(listed["data"].Size(), 2u);
  EXPECT_EQ(std::string(listed["data"][0]["id"].GetString()), second_id);  // newest first
  EXPECT_STREQ(listed["data"][0]["status"].GetString(), "pending");
  const auto& old = listed["data"][1];
  EXPECT_STREQ(old["status"].GetString(), "rejected");
  EXPECT_STREQ(old["review_notes"].GetString(), "Registration number not found");
  EXPECT_TRUE(old.HasMember("reviewed_at"));
  // Pagination and the status filter.
  const auto page = submissions(organization.test_key, "?limit=1");
  ASSERT_EQ(page["data"].Size(), 1u);
  EXPECT_TRUE(page["has_more"].GetBool());
  EXPECT_EQ(std::string(page["next_cursor"].GetString()), second_id);
  const auto next = submissions(organization.test_key, "?limit=1&starting_after=" + second_id);
  ASSERT_EQ(next["data"].Size(), 1u);
  EXPECT_EQ(std::string(next["data"][0]["id"].GetString()), first_id);
  EXPECT_FALSE(next["has_more"].GetBool());
  const auto only_rejected = submissions(organization.test_key, "?status=rejected");
  ASSERT_EQ(only_rejected["data"].Size(), 1u);
  EXPECT_EQ(std::string(only_rejected["data"][0]["id"].GetString()), first_id);
  EXPECT_TRUE(is_error(http().get("/v1/kyb?status=approved", with_key(organization.test_key)), 400,
                       "bad_request", "status"));

  ASSERT_EQ(review(second_id, "in_review").first, 0);
  ASSERT_EQ(review(second_id, "verified").first, 0);
  EXPECT_TRUE(has_status(live_key(organization), 201));
}

TEST_F(Kyb, SuspendedOrganizationIsRefusedOnEveryKeyRequestUntilReinstated) {
  const auto organization = stack_->create_organization();
  const auto bystander = stack_->create_organization();
  stack_->verify_business(organization);
  const auto created = live_key(organization);
  ASSERT_TRUE(has_status(created, 201));
  const std::string live = created.json()["key"].GetString();
  const auto operator_command = [&](const std::string& command, const std::string& reason) {
    return stack_->cli(
        {command, "--org", organization.id, "--operator", "ops-carol", "--reason", reason});
  };
  const auto [suspended, output] = operator_command("org-suspend", "chargeback review");
  ASSERT_EQ(suspended, 0) << output;
  EXPECT_NE(operator_command("org-suspend", "again").first, 0) << "already suspended";

  // Every route an API key can call, test and live keys alike, from the server's route table.
  static const std::regex parameter(R"(\{[^}]+\})");
  int refused = 0;
  const auto router = api::build_router();
  for (const auto& route : router.routes()) {
    if (route.access != api::Access::api_key && route.access != api::Access::api_key_or_session) {
      continue;
    }
    const auto path = std::regex_replace(route.pattern, parameter, "made_up_id_0123456789");
    for (const auto& key : {organization.test_key, live}) {
      const auto response = http().request(route.method, path, route.method == "POST" ? "{}" : "",
                                           with_key(key, {{"Content-Type", "application/json"}}));
      EXPECT_TRUE(is_error(response, 403, "org_suspended")) << route.method << " " << path;
      ++refused;
    }
  }
  EXPECT_GE(refused, 30);
  // The owner's session cannot act for it either.
  EXPECT_TRUE(is_error(live_key(organization), 403, "org_suspended"));
  // Other organizations are untouched.
  EXPECT_TRUE(has_status(http().get("/v1/organization", with_key(bystander.test_key)), 200));

  const auto [reinstated, reinstate_output] = operator_command("org-reinstate", "cleared");
  ASSERT_EQ(reinstated, 0) << reinstate_output;
  EXPECT_EQ(organization_field(organization.test_key, "status"), "active");
  EXPECT_EQ(organization_field(live, "status"), "active");
  EXPECT_TRUE(has_status(http().get("/v1/kyb", with_key(live)), 200));

  const auto [code, trail] = stack_->cli({"audit-log", "--org", organization.id});
  ASSERT_EQ(code, 0) << trail;
  EXPECT_NE(trail.find("ops-carol\torganization.suspended\t" + organization.id + "\torganization " +
                       organization.id + "\tchargeback review"),
            std::string::npos)
      << trail;
  EXPECT_NE(trail.find("ops-carol\torganization.reinstated"), std::string::npos) << trail;
  EXPECT_EQ(stack_->database().scalar(
                "SELECT string_agg(from_status || '>' || to_status || ':' || trigger, ',' ORDER BY "
                "id) FROM resource_transitions WHERE resource_type = 'organization' AND "
                "resource_id = '" +
                organization.id + "' AND from_status IS NOT NULL"),
            "active>suspended:suspend,suspended>active:reinstate");
}

TEST_F(Kyb, LiveCorridorsAndRailsAreEnabledPerOrganizationByOperators) {
  // The one mechanism fiat payouts and collections share (payrail corridor-enable | rail-enable).
  const auto organization = stack_->create_organization();
  stack_->verify_business(organization);
  ASSERT_EQ(stack_
                ->cli({"corridor-enable", "--org", organization.id, "--country", "MX", "--operator",
                       "ops-dave"})
                .first,
            0);
  ASSERT_EQ(stack_
                ->cli({"rail-enable", "--org", organization.id, "--method", "ach", "--operator",
                       "ops-dave"})
                .first,
            0);
  const auto [code, rails] = stack_->cli({"rails", "--org", organization.id});
  ASSERT_EQ(code, 0) << rails;
  EXPECT_NE(rails.find("fiat_corridor\tMX\tenabled by ops-dave"), std::string::npos) << rails;
  EXPECT_NE(rails.find("collection_rail\tach\tenabled by ops-dave"), std::string::npos) << rails;
}

}  // namespace
}  // namespace payrail::testing
