// The web console's pure pieces: reading its cookie, the secrets it issues, the cookies it sets,
// the scopes a role grants, the encoding of the OpenID Connect redirect, and the ID token's
// nonce as the verifier reads it.
#include <gtest/gtest.h>

#include <algorithm>

#include "api/console/oidc.h"
#include "api/console/sessions.h"
#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/crypto/crypto.h"
#include "schemas/model/organizations/scopes.h"

namespace payrail::api::console {
namespace {

HttpRequest with_cookie(std::string value) {
  HttpRequest request;
  request.method = "GET";
  request.headers["Cookie"] = std::move(value);
  return request;
}

TEST(ConsoleCookie, TheSessionCookieIsFoundAmongOthers) {
  const auto found =
      read_cookie(with_cookie("theme=dark; __Host-payrail_console=abc ; lang=en"), kSessionCookie);
  ASSERT_TRUE(found.ok());
  ASSERT_TRUE(found->has_value());
  EXPECT_EQ(**found, "abc");
  // The sign-in cookie's name starts with the session cookie's: neither is taken for the other.
  const auto sign_in =
      read_cookie(with_cookie("__Host-payrail_console_sign_in=xyz"), kSessionCookie);
  ASSERT_TRUE(sign_in.ok());
  EXPECT_FALSE(sign_in->has_value());
}

TEST(ConsoleCookie, AbsentIsNoCookieAndTwiceIsRefused) {
  const auto none = read_cookie(HttpRequest{}, kSessionCookie);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());
  // Repeated Cookie fields arrive joined with ", ": two values could name two sessions.
  const auto twice = read_cookie(with_cookie("__Host-payrail_console=a, __Host-payrail_console=b"),
                                 kSessionCookie);
  ASSERT_FALSE(twice.ok());
  EXPECT_EQ(twice.error().code, model::ErrorCode::session_invalid);
}

TEST(ConsoleSecrets, AreTwoHundredFiftySixRandomBitsInBase64Url) {
  const auto first = new_secret();
  const auto second = new_secret();
  EXPECT_EQ(first.size(), 43u);
  EXPECT_NE(first, second);
  EXPECT_TRUE(is_secret(first));
  EXPECT_EQ(infra::crypto::base64url_decode(first)->size(), 32u);
  EXPECT_FALSE(is_secret(first.substr(1)));
  EXPECT_FALSE(is_secret(std::string(42, 'a') + "="));
  EXPECT_FALSE(is_secret(std::string(42, 'a') + "\n"));
}

TEST(ConsoleCookies, AreHostOnlySecureHttpOnlyAndStrictExceptTheSignInOne) {
  EXPECT_EQ(session_cookie("id", 60),
            "__Host-payrail_console=id; Max-Age=60; Path=/; Secure; HttpOnly; SameSite=Strict");
  // The provider's redirect back is a cross-site navigation: Strict would not send it.
  EXPECT_EQ(
      sign_in_cookie("b", 600),
      "__Host-payrail_console_sign_in=b; Max-Age=600; Path=/; Secure; HttpOnly; SameSite=Lax");
  EXPECT_EQ(deleted_cookie(kSessionCookie),
            "__Host-payrail_console=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict");
}

TEST(ConsoleRoles, AnOwnerGetsEveryScopeAMemberTheReadScopes) {
  const auto owner = role_scopes("owner");
  EXPECT_EQ(owner.size(), model::kGrantableScopes.size());
  const auto member = role_scopes("member");
  EXPECT_EQ(member.size(), 5u);
  for (const auto& scope : member) EXPECT_TRUE(scope.ends_with(":read")) << scope;
  EXPECT_EQ(role_scopes("someone-else"), member);
}

TEST(ConsoleRequests, OnlyGetAndHeadLeaveStateAlone) {
  for (const char* method : {"POST", "PUT", "PATCH", "DELETE", "OPTIONS"}) {
    HttpRequest request;
    request.method = method;
    EXPECT_TRUE(changes_state(request)) << method;
  }
  for (const char* method : {"GET", "HEAD"}) {
    HttpRequest request;
    request.method = method;
    EXPECT_FALSE(changes_state(request)) << method;
  }
}

TEST(ConsoleOidcClient, RedirectValuesArePercentEncoded) {
  EXPECT_EQ(url_encode("openid email"), "openid%20email");
  EXPECT_EQ(url_encode("https://a.example/console/callback?x=1&y"),
            "https%3A%2F%2Fa.example%2Fconsole%2Fcallback%3Fx%3D1%26y");
  EXPECT_EQ(url_encode("AZaz09-._~"), "AZaz09-._~");
  EXPECT_EQ(url_encode("\xC3\xA9"), "%C3%A9");
}

std::string hs256_token(const std::string& claims) {
  const auto input = infra::crypto::base64url_encode(R"({"alg":"HS256","typ":"JWT"})") + "." +
                     infra::crypto::base64url_encode(claims);
  return input + "." +
         infra::crypto::base64url_encode(
             infra::crypto::hmac_sha256("console-unit-test-secret-0123456789abcdef", input));
}

TEST(ConsoleOidcClient, TheVerifierReadsTheNonceOfAnIdToken) {
  auto verifier = infra::auth::JwtVerifier::create(
      {.issuer = "https://idp.example",
       .audience = "payrail-console",
       .hs256_secret = std::string("console-unit-test-secret-0123456789abcdef")});
  ASSERT_TRUE(verifier.ok());
  const std::string claims =
      R"("iss":"https://idp.example","aud":"payrail-console","sub":"m","email":"m@example.com","exp":2000000000)";
  const auto with_nonce = verifier->verify(hs256_token("{" + claims + R"(,"nonce":"n-1"})"), 0);
  ASSERT_TRUE(with_nonce.ok());
  EXPECT_EQ(with_nonce->nonce, "n-1");
  const auto without = verifier->verify(hs256_token("{" + claims + "}"), 0);
  ASSERT_TRUE(without.ok());
  EXPECT_FALSE(without->nonce.has_value());
  const auto not_text = verifier->verify(hs256_token("{" + claims + R"(,"nonce":7})"), 0);
  ASSERT_FALSE(not_text.ok());
  EXPECT_EQ(not_text.error().code, model::ErrorCode::session_invalid);
}

}  // namespace
}  // namespace payrail::api::console
