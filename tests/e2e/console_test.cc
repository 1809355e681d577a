// The web console's server side over real HTTP (docs/console.md): the development sign-in and
// its hardened cookie, the one authorisation mechanism that turns a member's console session into
// the principal of an organization and mode for every /v1 route, CSRF (token and Origin) on every
// state change, a cross-site form post refused, isolation between organizations through the
// console's own routes and /v1, roles, the standing gate, sign-out, and the files it serves.
#include <gtest/gtest.h>

#include "tests/support/collections.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

struct Member {
  std::string email;
  std::string cookie;  // "__Host-payrail_console=..."
  std::string csrf;
};

class Console : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { stack_ = new TestStack({.workers = {"screening"}}); }
  static void TearDownTestSuite() {
    delete stack_;
    stack_ = nullptr;
  }

  static const HttpClient& http() { return stack_->http(); }
  // The console's own origin as the browser addresses this API: https://<Host>.
  static std::string origin() { return "https://127.0.0.1:" + std::to_string(stack_->http_port()); }

  static HttpResult sign_in_response(const std::string& email, const std::string& from) {
    return http().post("/console/sign-in/development", R"({"email":")" + email + R"("})",
                       {{"Origin", from}});
  }

  // The cookie pair from a Set-Cookie value ("name=value; attributes").
  static std::string cookie_pair(const std::string& set_cookie) {
    return set_cookie.substr(0, set_cookie.find(';'));
  }

  static Member sign_in(const std::string& email) {
    const auto response = sign_in_response(email, origin());
    EXPECT_EQ(response.status, 200) << response.body;
    Member member{email, cookie_pair(response.header("set-cookie")), ""};
    const auto session = http().get("/console/session", {{"Cookie", member.cookie}});
    EXPECT_EQ(session.status, 200) << session.body;
    member.csrf = session.json()["csrf_token"].GetString();
    return member;
  }

  // Read headers of a member acting for an organization in a mode.
  static Headers as(const Member& member, const std::string& org_id,
                    const std::string& mode = "test") {
    return {{"Cookie", member.cookie}, {"Payrail-Organization", org_id}, {"Payrail-Mode", mode}};
  }
  // The same with the proof a state change needs.
  static Headers changing(const Member& member, const std::string& org_id,
                          const std::string& mode = "test") {
    auto headers = as(member, org_id, mode);
    headers.emplace_back("X-CSRF-Token", member.csrf);
    headers.emplace_back("Origin", origin());
    return headers;
  }

  static std::string create_organization(const Member& member) {
    const auto response = http().post(
        "/v1/organizations",
        R"({"legal_name":"Console Ltd","display_name":"Console","country":"CA"})",
        {{"Cookie", member.cookie}, {"X-CSRF-Token", member.csrf}, {"Origin", origin()}});
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["id"].GetString();
  }

  // A test key of the organization, minted by its owner through the console.
  static std::string create_key(const Member& owner, const std::string& org_id) {
    const auto response =
        http().post("/v1/api-keys", R"({"mode":"test","name":"server"})", changing(owner, org_id));
    EXPECT_EQ(response.status, 201) << response.body;
    return response.json()["key"].GetString();
  }

  static std::string held_payout(const std::string& key) {
    static int counter = 0;
    const auto response =
        create_payout(http(), key, "held-" + std::to_string(counter++),
                      payout_body("15000", "USDC", "polygon", random_evm_address()));
    EXPECT_EQ(response.status, 202) << response.body;
    return response.json()["id"].GetString();
  }

  static TestStack* stack_;
};
TestStack* Console::stack_ = nullptr;

TEST_F(Console, DevelopmentSignInSetsAHardenedSessionCookie) {
  const auto email = unique_email("signin");
  const auto response = sign_in_response(email, origin());
  ASSERT_TRUE(has_status(response, 200)) << response.body;
  const auto set_cookie = response.header("set-cookie");
  EXPECT_TRUE(set_cookie.starts_with("__Host-payrail_console=")) << set_cookie;
  for (const char* attribute : {"; Secure", "; HttpOnly", "; SameSite=Strict", "; Path=/"}) {
    EXPECT_NE(set_cookie.find(attribute), std::string::npos) << attribute << " in " << set_cookie;
  }
  EXPECT_EQ(set_cookie.find("Domain"), std::string::npos);
  // The cookie carries 256 random bits; the database keeps only their SHA-256.
  const auto id = cookie_pair(set_cookie).substr(std::string("__Host-payrail_console=").size());
  EXPECT_EQ(id.size(), 43u);
  EXPECT_EQ(stack_->database().scalar("SELECT count(*) FROM console_sessions WHERE id_hash = '" +
                                      id + "' OR csrf_token = '" + id + "'"),
            "0");
  const auto session = http().get("/console/session", {{"Cookie", cookie_pair(set_cookie)}});
  ASSERT_TRUE(has_status(session, 200));
  auto json = session.json();
  EXPECT_TRUE(json["signed_in"].GetBool());
  EXPECT_EQ(std::string(json["email"].GetString()), email);
  EXPECT_EQ(std::string(json["subject"].GetString()), "dev|" + email);
  EXPECT_TRUE(json["sign_in_methods"]["development"].GetBool());
  EXPECT_FALSE(json["sign_in_methods"]["oidc"].GetBool());
  EXPECT_EQ(json["organizations"].Size(), 0u);
  EXPECT_EQ(std::string(json["csrf_token"].GetString()).size(), 43u);
  // Without a cookie: signed out, and how to sign in.
  const auto anonymous = http().get("/console/session").json();
  EXPECT_FALSE(anonymous["signed_in"].GetBool());
  EXPECT_FALSE(anonymous.HasMember("csrf_token"));
}

TEST_F(Console, SignInNeedsTheConsolesOwnOriginAndAnAddress) {
  EXPECT_TRUE(is_error(sign_in_response(unique_email(), "https://attacker.example"), 403,
                       "csrf_failed", "Origin"));
  EXPECT_TRUE(is_error(http().post("/console/sign-in/development", R"({"email":"a@example.com"})"),
                       403, "csrf_failed", "Origin"));
  EXPECT_TRUE(is_error(sign_in_response("not-an-address", origin()), 400, "bad_request", "email"));
  EXPECT_TRUE(is_error(http().post("/console/sign-in/development", R"({"mail":"a@example.com"})",
                                   {{"Origin", origin()}}),
                       400, "bad_request", "mail"));
}

TEST_F(Console, TheSessionActsForItsOrganizationOnEveryV1Route) {
  const auto owner = sign_in(unique_email("owner"));
  const auto org_id = create_organization(owner);
  const auto balances = http().get("/v1/balances", as(owner, org_id));
  ASSERT_TRUE(has_status(balances, 200)) << balances.body;
  EXPECT_EQ(balances.json()["data"].Size(), 3u);
  EXPECT_TRUE(has_status(http().get("/v1/balance-transactions", as(owner, org_id)), 200));
  EXPECT_TRUE(has_status(http().get("/v1/payouts", as(owner, org_id)), 200));
  EXPECT_TRUE(has_status(http().get("/v1/events", as(owner, org_id)), 200));
  const auto organization = http().get("/v1/organization", as(owner, org_id));
  ASSERT_TRUE(has_status(organization, 200));
  EXPECT_EQ(std::string(organization.json()["id"].GetString()), org_id);
  // Live mode is the same organization's other half: empty, not an error.
  const auto live = http().get("/v1/payouts", as(owner, org_id, "live"));
  ASSERT_TRUE(has_status(live, 200));
  EXPECT_EQ(live.json()["data"].Size(), 0u);
  // The session shows its organizations.
  const auto session = http().get("/console/session", {{"Cookie", owner.cookie}}).json();
  ASSERT_EQ(session["organizations"].Size(), 1u);
  EXPECT_EQ(std::string(session["organizations"][0]["role"].GetString()), "owner");
}

TEST_F(Console, TheOrganizationAndModeHeadersAreRequiredAndChecked) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  EXPECT_TRUE(is_error(http().get("/v1/balances", {{"Cookie", owner.cookie}}), 400, "bad_request",
                       "Payrail-Organization"));
  EXPECT_TRUE(is_error(
      http().get("/v1/balances", {{"Cookie", owner.cookie}, {"Payrail-Organization", org_id}}), 400,
      "bad_request", "Payrail-Mode"));
  EXPECT_TRUE(is_error(http().get("/v1/balances", as(owner, org_id, "production")), 400,
                       "bad_request", "Payrail-Mode"));
  EXPECT_TRUE(
      is_error(http().get("/v1/balances", as(owner, "org_doesnotexist")), 404, "resource_missing"));
}

TEST_F(Console, AMemberOfOneOrganizationCannotReadOrActOnAnother) {
  const auto alice = sign_in(unique_email("alice"));
  const auto alice_org = create_organization(alice);
  const auto alice_key = create_key(alice, alice_org);
  const auto payout_id = held_payout(alice_key);
  const auto bob = sign_in(unique_email("bob"));
  const auto bob_org = create_organization(bob);

  // Naming Alice's organization: refused as if it did not exist, reads and changes alike.
  for (const char* path : {"/v1/balances", "/v1/payouts", "/v1/balance-transactions",
                           "/v1/api-keys", "/v1/events", "/v1/organization"}) {
    EXPECT_TRUE(is_error(http().get(path, as(bob, alice_org)), 404, "resource_missing")) << path;
  }
  EXPECT_TRUE(
      is_error(http().get("/console/api/payouts/" + payout_id + "/history", as(bob, alice_org)),
               404, "resource_missing"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test"})", changing(bob, alice_org)),
                       404, "resource_missing"));
  EXPECT_TRUE(is_error(
      http().post("/v1/webhooks", R"({"url":"https://example.com/h","events":["payout.created"]})",
                  changing(bob, alice_org)),
      404, "resource_missing"));
  // Through his own organization, Alice's resources do not exist.
  EXPECT_TRUE(
      is_error(http().get("/v1/payouts/" + payout_id, as(bob, bob_org)), 404, "resource_missing"));
  EXPECT_TRUE(
      is_error(http().get("/console/api/payouts/" + payout_id + "/history", as(bob, bob_org)), 404,
               "resource_missing"));
  // Approving Alice's payout as Bob: 404, and nothing changed.
  EXPECT_TRUE(
      is_error(http().post("/v1/payouts/" + payout_id + "/approve", "", changing(bob, bob_org)),
               404, "resource_missing"));
  const auto payout = http().get("/v1/payouts/" + payout_id, with_key(alice_key));
  EXPECT_STREQ(payout.json()["status"].GetString(), "pending_approval");
  // Bob's session lists only his organization.
  const auto session = http().get("/console/session", {{"Cookie", bob.cookie}}).json();
  ASSERT_EQ(session["organizations"].Size(), 1u);
  EXPECT_EQ(std::string(session["organizations"][0]["id"].GetString()), bob_org);
}

TEST_F(Console, StateChangesNeedTheCsrfTokenAndTheOwnOrigin) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  const std::string body = R"({"mode":"test","name":"csrf"})";
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, as(owner, org_id)), 403, "csrf_failed",
                       "X-CSRF-Token"));
  auto wrong_token = as(owner, org_id);
  wrong_token.emplace_back("X-CSRF-Token", std::string(43, 'A'));
  wrong_token.emplace_back("Origin", origin());
  EXPECT_TRUE(
      is_error(http().post("/v1/api-keys", body, wrong_token), 403, "csrf_failed", "X-CSRF-Token"));
  auto foreign = as(owner, org_id);
  foreign.emplace_back("X-CSRF-Token", owner.csrf);
  foreign.emplace_back("Origin", "https://attacker.example");
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, foreign), 403, "csrf_failed", "Origin"));
  auto no_origin = as(owner, org_id);
  no_origin.emplace_back("X-CSRF-Token", owner.csrf);
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", body, no_origin), 403, "csrf_failed", "Origin"));
  // Nothing was created by the refused requests; the proper one creates.
  EXPECT_EQ(http().get("/v1/api-keys", as(owner, org_id)).json()["data"].Size(), 1u);
  const auto created = http().post("/v1/api-keys", body, changing(owner, org_id));
  ASSERT_TRUE(has_status(created, 201)) << created.body;
  const std::string key_id = created.json()["id"].GetString();
  EXPECT_TRUE(is_error(http().del("/v1/api-keys/" + key_id, as(owner, org_id)), 403, "csrf_failed",
                       "X-CSRF-Token"));
  EXPECT_TRUE(has_status(http().del("/v1/api-keys/" + key_id, changing(owner, org_id)), 204));
  // Sign-out is a state change too.
  EXPECT_TRUE(is_error(http().post("/console/sign-out", "", {{"Cookie", owner.cookie}}), 403,
                       "csrf_failed", "X-CSRF-Token"));
}

// A form on another site can post with the member's cookie (a browser without SameSite would
// send it) but can set neither X-CSRF-Token nor its Origin: refused, and the payout stays held.
TEST_F(Console, ACrossSiteFormPostIsRefused) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  const auto payout_id = held_payout(create_key(owner, org_id));
  const auto path = "/v1/payouts/" + payout_id + "/approve";
  const Headers form_post{{"Cookie", owner.cookie},
                          {"Origin", "https://attacker.example"},
                          {"Content-Type", "application/x-www-form-urlencoded"}};
  EXPECT_TRUE(is_error(http().post(path, "", form_post), 403, "csrf_failed", "X-CSRF-Token"));
  EXPECT_TRUE(is_error(http().post(path, "confirm=yes", form_post), 415, "bad_request"));
  Headers with_token = form_post;
  with_token.emplace_back("X-CSRF-Token", owner.csrf);  // even a leaked token needs the Origin
  EXPECT_TRUE(is_error(http().post(path, "", with_token), 403, "csrf_failed", "Origin"));
  const auto history =
      http().get("/console/api/payouts/" + payout_id + "/history", as(owner, org_id));
  ASSERT_TRUE(has_status(history, 200)) << history.body;
  const auto timeline = history.json()["timeline"].GetArray();
  EXPECT_STREQ(timeline[timeline.Size() - 1]["to_status"].GetString(), "pending_approval");
}

TEST_F(Console, AnApprovalThroughTheConsoleRecordsWhoDecided) {
  const auto owner = sign_in(unique_email("approver"));
  const auto org_id = create_organization(owner);
  const auto key = create_key(owner, org_id);
  const auto approved_id = held_payout(key);
  const auto rejected_id = held_payout(key);
  const auto approved =
      http().post("/v1/payouts/" + approved_id + "/approve", "", changing(owner, org_id));
  ASSERT_TRUE(has_status(approved, 200)) << approved.body;
  const auto rejected =
      http().post("/v1/payouts/" + rejected_id + "/reject", "", changing(owner, org_id));
  ASSERT_TRUE(has_status(rejected, 200)) << rejected.body;
  EXPECT_STREQ(rejected.json()["status"].GetString(), "cancelled");
  for (const auto& [id, trigger] :
       {std::pair{approved_id, "approve"}, std::pair{rejected_id, "reject"}}) {
    const auto history = http().get("/console/api/payouts/" + id + "/history", as(owner, org_id));
    ASSERT_TRUE(has_status(history, 200)) << history.body;
    auto json = history.json();
    bool found = false;
    for (const auto& change : json["timeline"].GetArray()) {
      if (std::string(change["trigger"].GetString()) != trigger) continue;
      found = true;
      EXPECT_EQ(std::string(change["actor"].GetString()), "dev|" + owner.email);
    }
    EXPECT_TRUE(found) << trigger;
    EXPECT_TRUE(json["events"].IsArray());
  }
}

// Fiat payouts and collections keep their timeline in resource_transitions; payouts in their own
// log (resource_history::timeline knows which).
TEST_F(Console, FiatPayoutAndCollectionPagesHaveTheirTimelines) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  const auto key = create_key(owner, org_id);
  const auto fiat = create_fiat_payout(http(), key, "fiat-history",
                                       fiat_payout_body("100.00", mexico_case(), "Ana Torres"));
  ASSERT_TRUE(fiat.status == 201 || fiat.status == 202) << fiat.body;
  const std::string fiat_id = fiat.json()["id"].GetString();
  const auto collection =
      create_collection(http(), key, "collection-history", collection_body("50.00", "CAD", "eft"));
  ASSERT_EQ(collection.status, 201) << collection.body;
  const std::string collection_id = collection.json()["id"].GetString();
  for (const auto& [path, first_status] :
       {std::pair{"/console/api/fiat-payouts/" + fiat_id, std::string("pending")},
        std::pair{"/console/api/collections/" + collection_id, std::string("awaiting_payment")}}) {
    const auto history = http().get(path + "/history", as(owner, org_id));
    ASSERT_TRUE(has_status(history, 200)) << path << " " << history.body;
    auto json = history.json();
    ASSERT_GE(json["timeline"].Size(), 1u) << path;
    EXPECT_TRUE(json["timeline"][0]["from_status"].IsNull());
    EXPECT_EQ(std::string(json["timeline"][0]["to_status"].GetString()), first_status) << path;
    // Another type's route does not find it, nor does live mode.
    EXPECT_TRUE(is_error(http().get(path + "/history", as(owner, org_id, "live")), 404,
                         "resource_missing"));
  }
  EXPECT_TRUE(
      is_error(http().get("/console/api/payouts/" + fiat_id + "/history", as(owner, org_id)), 404,
               "resource_missing"));
}

TEST_F(Console, AMemberReadsButAnOwnerDecidesKeysAndEndpoints) {
  const auto owner = sign_in(unique_email("owner"));
  const auto org_id = create_organization(owner);
  const auto member = sign_in(unique_email("member"));
  stack_->database().scalar(
      "INSERT INTO organization_members (org_id, subject, email, role) VALUES ('" + org_id +
      "', 'dev|" + member.email + "', '" + member.email + "', 'member') RETURNING 1");
  EXPECT_TRUE(has_status(http().get("/v1/balances", as(member, org_id)), 200));
  EXPECT_TRUE(has_status(http().get("/v1/payouts", as(member, org_id)), 200));
  EXPECT_TRUE(is_error(
      http().post("/v1/webhooks", R"({"url":"https://example.com/h","events":["payout.created"]})",
                  changing(member, org_id)),
      403, "scope_insufficient"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test"})", changing(member, org_id)),
                       404, "resource_missing"));
  const auto session = http().get("/console/session", {{"Cookie", member.cookie}}).json();
  ASSERT_EQ(session["organizations"].Size(), 1u);
  EXPECT_EQ(std::string(session["organizations"][0]["role"].GetString()), "member");
}

TEST_F(Console, ASuspendedOrganizationIsRefused) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  ASSERT_EQ(stack_->cli({"org-suspend", "--org", org_id, "--operator", "test-operator"}).first, 0);
  EXPECT_TRUE(is_error(http().get("/v1/balances", as(owner, org_id)), 403, "org_suspended"));
  EXPECT_TRUE(is_error(http().post("/v1/api-keys", R"({"mode":"test"})", changing(owner, org_id)),
                       403, "org_suspended"));
}

TEST_F(Console, SignOutEndsTheSession) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  const auto signed_out =
      http().post("/console/sign-out", "",
                  {{"Cookie", owner.cookie}, {"X-CSRF-Token", owner.csrf}, {"Origin", origin()}});
  ASSERT_TRUE(has_status(signed_out, 204)) << signed_out.body;
  const auto cleared = signed_out.header("set-cookie");
  EXPECT_TRUE(cleared.starts_with("__Host-payrail_console=;")) << cleared;
  EXPECT_NE(cleared.find("Max-Age=0"), std::string::npos);
  EXPECT_TRUE(is_error(http().get("/v1/balances", as(owner, org_id)), 401, "session_invalid"));
  EXPECT_FALSE(
      http().get("/console/session", {{"Cookie", owner.cookie}}).json()["signed_in"].GetBool());
  // A made-up or malformed cookie is no session either.
  EXPECT_TRUE(
      is_error(http().get("/v1/balances", as({"", "__Host-payrail_console=nope", ""}, org_id)), 401,
               "session_invalid"));
}

TEST_F(Console, AnApiKeyWinsOverTheCookieAndTheCookieNeverWidensIt) {
  const auto owner = sign_in(unique_email());
  const auto org_id = create_organization(owner);
  const auto narrow = http().post("/v1/api-keys", R"({"mode":"test","scopes":["payouts:read"]})",
                                  changing(owner, org_id));
  ASSERT_TRUE(has_status(narrow, 201));
  auto headers = as(owner, org_id);
  headers.emplace_back("X-API-Key", narrow.json()["key"].GetString());
  EXPECT_TRUE(is_error(http().get("/v1/balances", headers), 403, "scope_insufficient"));
}

TEST_F(Console, ServesItsPagesWithAStrictContentSecurityPolicy) {
  const auto moved = http().get("/console");
  EXPECT_EQ(moved.status, 308);
  EXPECT_EQ(moved.header("location"), "/console/");
  const auto index = http().get("/console/");
  ASSERT_EQ(index.status, 200);
  EXPECT_TRUE(index.header("content-type").starts_with("text/html"));
  EXPECT_NE(index.body.find("/console/app.js"), std::string::npos);
  const auto policy = index.header("content-security-policy");
  EXPECT_NE(policy.find("script-src 'self'"), std::string::npos) << policy;
  EXPECT_NE(policy.find("frame-ancestors 'none'"), std::string::npos) << policy;
  EXPECT_EQ(policy.find("unsafe"), std::string::npos) << policy;
  EXPECT_EQ(index.header("x-content-type-options"), "nosniff");
  const auto script = http().get("/console/app.js");
  ASSERT_EQ(script.status, 200);
  EXPECT_TRUE(script.header("content-type").starts_with("text/javascript"));
  EXPECT_TRUE(is_error(http().get("/console/missing.js"), 404, "resource_missing"));
  // Without OpenID Connect configured, its routes do not exist.
  EXPECT_TRUE(is_error(http().get("/console/sign-in"), 404, "resource_missing"));
}

}  // namespace
}  // namespace payrail::testing
