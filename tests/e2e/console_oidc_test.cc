// The web console's OpenID Connect sign-in over real HTTP, against a provider played by this
// test on loopback (discovery document and token endpoint; the browser-facing login of a real
// provider is proved by the browser suite, tests/browser/): the redirect carries PKCE S256, state
// and nonce; the callback exchanges the code with the verifier and client credentials and starts
// a session; and a tampered, expired, foreign-audience, wrong-issuer or other sign-in's ID token,
// a provider's refusal, a reused state and a callback in another browser start none.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <thread>
#include <vector>

#include "infra/plumbing/crypto/crypto.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr const char* kClientId = "payrail-console";
constexpr const char* kClientSecret = "console-client-secret";
constexpr const char* kKeyId = "console-key";

// A provider's discovery document and token endpoint on 127.0.0.1, one request per connection.
class FakeProvider {
 public:
  FakeProvider() {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0 ||
        listen(listener_, 16) != 0) {
      throw std::runtime_error("fake provider cannot listen");
    }
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~FakeProvider() {
    stopping_ = true;
    shutdown(listener_, SHUT_RDWR);
    close(listener_);
    thread_.join();
  }

  std::string issuer() const { return "http://127.0.0.1:" + std::to_string(port_); }
  void answer_token(int status, std::string body) {
    std::lock_guard lock(mutex_);
    token_status_ = status;
    token_body_ = std::move(body);
  }
  std::pair<std::string, std::string> last_token_request() {
    std::lock_guard lock(mutex_);
    return {token_request_body_, token_request_authorization_};
  }

 private:
  void serve() {
    while (!stopping_) {
      const int client = accept(listener_, nullptr, nullptr);
      if (client < 0) continue;
      answer(client);
      close(client);
    }
  }

  void answer(int client) {
    std::string request;
    char buffer[4096];
    std::size_t header_end = std::string::npos;
    std::size_t length = 0;
    while (true) {
      const auto got = read(client, buffer, sizeof(buffer));
      if (got <= 0) return;
      request.append(buffer, static_cast<std::size_t>(got));
      if (header_end == std::string::npos) {
        header_end = request.find("\r\n\r\n");
        if (header_end == std::string::npos) continue;
        const auto at = request.find("Content-Length: ");
        if (at != std::string::npos && at < header_end)
          length = std::stoul(request.substr(at + 16));
      }
      if (request.size() >= header_end + 4 + length) break;
    }
    std::string status = "200 OK";
    std::string body;
    if (request.starts_with("GET /.well-known/openid-configuration ")) {
      body = R"({"issuer":")" + issuer() + R"(","authorization_endpoint":")" + issuer() +
             R"(/authorize","token_endpoint":")" + issuer() + R"(/token"})";
    } else if (request.starts_with("POST /token ")) {
      std::lock_guard lock(mutex_);
      token_request_body_ = request.substr(header_end + 4);
      const auto at = request.find("Authorization: ");
      token_request_authorization_ =
          at == std::string::npos ? ""
                                  : request.substr(at + 15, request.find("\r\n", at) - at - 15);
      status = std::to_string(token_status_) + (token_status_ == 200 ? " OK" : " Error");
      body = token_body_;
    } else {
      status = "404 Not Found";
    }
    const auto response = "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\n" +
                          "Content-Length: " + std::to_string(body.size()) +
                          "\r\nConnection: close\r\n\r\n" + body;
    if (write(client, response.data(), response.size()) < 0) return;
  }

  int listener_ = -1;
  int port_ = 0;
  std::atomic<bool> stopping_ = false;
  std::thread thread_;
  std::mutex mutex_;
  int token_status_ = 200;
  std::string token_body_;
  std::string token_request_body_;
  std::string token_request_authorization_;
};

std::string url_decode(const std::string& text) {
  std::string decoded;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size()) {
      decoded += static_cast<char>(std::stoi(text.substr(i + 1, 2), nullptr, 16));
      i += 2;
    } else {
      decoded += text[i] == '+' ? ' ' : text[i];
    }
  }
  return decoded;
}

std::map<std::string, std::string> query_of(const std::string& url_or_form) {
  std::map<std::string, std::string> parameters;
  const auto question = url_or_form.find('?');
  std::string rest = question == std::string::npos ? url_or_form : url_or_form.substr(question + 1);
  while (!rest.empty()) {
    const auto amp = rest.find('&');
    const auto pair = rest.substr(0, amp);
    const auto equals = pair.find('=');
    parameters[url_decode(pair.substr(0, equals))] =
        equals == std::string::npos ? "" : url_decode(pair.substr(equals + 1));
    rest = amp == std::string::npos ? "" : rest.substr(amp + 1);
  }
  return parameters;
}

struct SignIn {
  std::map<std::string, std::string> parameters;  // of the redirect to the provider
  std::string browser_cookie;                     // "__Host-payrail_console_sign_in=..."
};

class ConsoleOidc : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    provider_ = new FakeProvider();
    jwks_path_ = new std::string("/tmp/payrail-test-" + std::to_string(getpid()) + "-console.jwks");
    std::ofstream(*jwks_path_) << RsaKeyPair::shared().jwks_json(kKeyId);
    stack_ = new TestStack({.workers = {},
                            .env = {{"PAYRAIL_IDP_HS256_SECRET", ""},
                                    {"PAYRAIL_IDP_JWKS_FILE", *jwks_path_},
                                    {"PAYRAIL_IDP_ISSUER", provider_->issuer()},
                                    {"PAYRAIL_CONSOLE_CLIENT_ID", kClientId},
                                    {"PAYRAIL_CONSOLE_CLIENT_SECRET", kClientSecret}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    delete provider_;
    std::remove(jwks_path_->c_str());
    delete jwks_path_;
  }
  static const HttpClient& http() { return stack_->http(); }

  static SignIn start() {
    const auto response = http().get("/console/sign-in");
    EXPECT_EQ(response.status, 302) << response.body;
    const auto cookie = response.header("set-cookie");
    return {query_of(response.header("location")), cookie.substr(0, cookie.find(';'))};
  }

  static std::string claims(const SignIn& sign_in, const std::string& overrides = "") {
    const auto now = std::time(nullptr);
    std::map<std::string, std::string> members{
        {"iss", "\"" + provider_->issuer() + "\""},
        {"aud", std::string("\"") + kClientId + "\""},
        {"sub", "\"member-7\""},
        {"email", "\"finance@example.com\""},
        {"iat", std::to_string(now)},
        {"exp", std::to_string(now + 300)},
        {"nonce", "\"" + sign_in.parameters.at("nonce") + "\""}};
    // "name=value;name=value" replaces members.
    std::string rest = overrides;
    while (!rest.empty()) {
      const auto end = rest.find(';');
      const auto pair = rest.substr(0, end);
      const auto name = pair.substr(0, pair.find('='));
      const auto value = pair.substr(pair.find('=') + 1);
      if (value.empty()) {
        members.erase(name);  // "name=" leaves the claim out
      } else {
        members[name] = value;
      }
      rest = end == std::string::npos ? "" : rest.substr(end + 1);
    }
    std::string json = "{";
    for (const auto& [name, value] : members) {
      json += (json.size() > 1 ? "," : "") + ("\"" + name + "\":" + value);
    }
    return json + "}";
  }

  static std::string id_token(const std::string& claims_json) {
    return RsaKeyPair::shared().jwt(R"({"alg":"RS256","typ":"JWT","kid":"console-key"})",
                                    claims_json);
  }

  static void provider_issues(const std::string& token) {
    provider_->answer_token(
        200, R"({"access_token":"at","token_type":"Bearer","id_token":")" + token + R"("})");
  }

  static HttpResult callback(const SignIn& sign_in, const std::string& extra = "") {
    return http().get(
        "/console/callback?code=the-code&state=" + sign_in.parameters.at("state") + extra,
        {{"Cookie", sign_in.browser_cookie}});
  }

  // No session cookie was set, and the sign-in's state is spent.
  static void expect_refused(const HttpResult& response, const std::string& why) {
    EXPECT_TRUE(is_error(response, 401, "session_invalid")) << why << ": " << response.body;
    EXPECT_EQ(response.header("set-cookie").find("__Host-payrail_console="), std::string::npos)
        << why;
  }

  static FakeProvider* provider_;
  static std::string* jwks_path_;
  static TestStack* stack_;
};
FakeProvider* ConsoleOidc::provider_ = nullptr;
std::string* ConsoleOidc::jwks_path_ = nullptr;
TestStack* ConsoleOidc::stack_ = nullptr;

TEST_F(ConsoleOidc, TheProviderSignsAMemberInWithPkceStateAndNonce) {
  const auto sign_in = start();
  const auto& parameters = sign_in.parameters;
  EXPECT_EQ(parameters.at("response_type"), "code");
  EXPECT_EQ(parameters.at("client_id"), kClientId);
  EXPECT_EQ(parameters.at("scope"), "openid email");
  EXPECT_EQ(parameters.at("code_challenge_method"), "S256");
  EXPECT_EQ(parameters.at("redirect_uri"),
            "https://127.0.0.1:" + std::to_string(stack_->http_port()) + "/console/callback");
  EXPECT_EQ(parameters.at("state").size(), 43u);
  EXPECT_EQ(parameters.at("nonce").size(), 43u);
  EXPECT_TRUE(sign_in.browser_cookie.starts_with("__Host-payrail_console_sign_in="));

  provider_issues(id_token(claims(sign_in)));
  const auto response = callback(sign_in, "&iss=" + provider_->issuer());
  ASSERT_EQ(response.status, 302) << response.body;
  EXPECT_EQ(response.header("location"), "/console/");
  const auto cookies = response.header("set-cookie");
  const auto session_at = cookies.find("__Host-payrail_console=");
  ASSERT_NE(session_at, std::string::npos) << cookies;
  EXPECT_NE(cookies.find("__Host-payrail_console_sign_in=; Max-Age=0"), std::string::npos);

  // The code went back with the PKCE verifier of the challenge, and the client's credentials.
  const auto [form, authorization] = provider_->last_token_request();
  const auto sent = query_of(form);
  EXPECT_EQ(sent.at("grant_type"), "authorization_code");
  EXPECT_EQ(sent.at("code"), "the-code");
  EXPECT_EQ(sent.at("redirect_uri"), parameters.at("redirect_uri"));
  EXPECT_EQ(infra::crypto::base64url_encode(infra::crypto::sha256(sent.at("code_verifier"))),
            parameters.at("code_challenge"));
  EXPECT_EQ(authorization, "Basic cGF5cmFpbC1jb25zb2xlOmNvbnNvbGUtY2xpZW50LXNlY3JldA==");

  const auto cookie = cookies.substr(session_at, cookies.find(';', session_at) - session_at);
  const auto session = http().get("/console/session", {{"Cookie", cookie}});
  ASSERT_TRUE(has_status(session, 200));
  auto json = session.json();
  EXPECT_TRUE(json["signed_in"].GetBool());
  EXPECT_STREQ(json["email"].GetString(), "finance@example.com");
  EXPECT_STREQ(json["subject"].GetString(), "member-7");
  EXPECT_STREQ(json["sign_in"].GetString(), "oidc");
  EXPECT_TRUE(json["sign_in_methods"]["oidc"].GetBool());
  // The development sign-in does not exist without the development session secret.
  EXPECT_FALSE(json["sign_in_methods"]["development"].GetBool());
  EXPECT_TRUE(is_error(
      http().post("/console/sign-in/development", R"({"email":"a@example.com"})",
                  {{"Origin", "https://127.0.0.1:" + std::to_string(stack_->http_port())}}),
      404, "resource_missing"));
  // The state was used: the same callback again is refused.
  expect_refused(callback(sign_in), "reused state");
}

TEST_F(ConsoleOidc, ABadIdTokenStartsNoSession) {
  const RsaKeyPair stranger;
  const auto now = std::time(nullptr);
  const std::vector<std::pair<std::string, std::function<std::string(const SignIn&)>>> cases{
      {"tampered",
       [](const SignIn& s) {
         auto token = id_token(claims(s));
         const auto first = token.find('.');
         const auto second = token.find('.', first + 1);
         // The same signature over other claims: another member's e-mail.
         return token.substr(0, first + 1) +
                infra::crypto::base64url_encode(claims(s, "email=\"ceo@example.com\"")) +
                token.substr(second);
       }},
      {"expired",
       [now](const SignIn& s) {
         return id_token(
             claims(s, "exp=" + std::to_string(now - 3600) + ";iat=" + std::to_string(now - 7200)));
       }},
      {"foreign audience",
       [](const SignIn& s) { return id_token(claims(s, "aud=\"another-client\"")); }},
      {"audience of the API's bearer sessions",
       [](const SignIn& s) { return id_token(claims(s, "aud=\"payrail-api\"")); }},
      {"other issuer",
       [](const SignIn& s) { return id_token(claims(s, "iss=\"https://evil.example\"")); }},
      {"other sign-in's nonce",
       [](const SignIn& s) { return id_token(claims(s, "nonce=\"not-this-sign-in\"")); }},
      {"no nonce", [](const SignIn& s) { return id_token(claims(s, "nonce=")); }},
      {"another key",
       [&stranger](const SignIn& s) {
         return stranger.jwt(R"({"alg":"RS256","typ":"JWT","kid":"console-key"})", claims(s));
       }},
      {"unsigned",
       [](const SignIn& s) {
         return infra::crypto::base64url_encode(R"({"alg":"none"})") + "." +
                infra::crypto::base64url_encode(claims(s)) + ".";
       }},
  };
  for (const auto& [why, token_for] : cases) {
    const auto sign_in = start();
    provider_issues(token_for(sign_in));
    expect_refused(callback(sign_in), why);
  }
}

TEST_F(ConsoleOidc, TheCallbackBelongsToTheBrowserAndTheSignInThatStartedIt) {
  const auto without_cookie = start();
  provider_issues(id_token(claims(without_cookie)));
  expect_refused(
      http().get("/console/callback?code=c&state=" + without_cookie.parameters.at("state")),
      "no sign-in cookie");
  const auto sign_in = start();
  const auto other = start();
  provider_issues(id_token(claims(sign_in)));
  expect_refused(callback(SignIn{sign_in.parameters, other.browser_cookie}), "another browser");
  // The refusal spent the state it named.
  expect_refused(callback(sign_in), "spent by the refusal");
  expect_refused(callback(SignIn{{{"state", std::string(43, 'x')}}, other.browser_cookie}),
                 "unknown state");
  EXPECT_TRUE(is_error(http().get("/console/callback?code=c", {{"Cookie", other.browser_cookie}}),
                       400, "bad_request", "state"));
}

TEST_F(ConsoleOidc, AProviderThatRefusesOrNamesAnotherIssuerStartsNoSession) {
  const auto denied = start();
  expect_refused(
      http().get("/console/callback?error=access_denied&state=" + denied.parameters.at("state"),
                 {{"Cookie", denied.browser_cookie}}),
      "access denied");
  const auto refused_code = start();
  provider_->answer_token(400, R"({"error":"invalid_grant"})");
  expect_refused(callback(refused_code), "invalid grant");
  const auto mixed_up = start();
  provider_issues(id_token(claims(mixed_up)));
  expect_refused(callback(mixed_up, "&iss=https%3A%2F%2Fevil.example"), "mix-up");
}

}  // namespace
}  // namespace payrail::testing
