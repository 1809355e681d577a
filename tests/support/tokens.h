// Credentials and expectations shared by the end-to-end tests: identity-provider sessions (JWTs)
// with arbitrary headers, claims and signatures (to prove every rejection path of the verifier),
// an RSA key for RS256 and algorithm-confusion tests, and the error-envelope assertion that
// every test uses (status, code, type, param, Request-Id).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "tests/support/http_client.h"
#include "tests/support/stack.h"

namespace payrail::testing {

// The claims of a session token; nullopt leaves a claim out.
struct SessionClaimSet {
  std::optional<std::string> issuer = "payrail-dev";
  std::optional<std::string> audience = "payrail-api";
  std::optional<std::string> subject;
  std::optional<std::string> email;
  std::optional<std::int64_t> issued_at;
  std::optional<std::int64_t> not_before;
  std::optional<std::int64_t> expires_at;
};

// Claims valid for an hour from now for a fresh subject and e-mail.
SessionClaimSet valid_claims();
std::string claims_json(const SessionClaimSet& claims);

inline constexpr std::string_view kHs256Header = R"({"alg":"HS256","typ":"JWT"})";
inline constexpr std::string_view kRs256Header = R"({"alg":"RS256","typ":"JWT"})";

// header.payload.signature with the given raw signature bytes (base64url-encoded here).
std::string jwt_with_signature(std::string_view header_json, std::string_view claims_json,
                               std::string_view signature);
// An HS256 signature over header.payload with `secret` (the header says whatever it says).
std::string jwt_hs256(std::string_view header_json, std::string_view claims_json,
                      std::string_view secret = kTestSessionSecret);

// A fresh 2048-bit RSA key; shared() is generated once per process (generation takes a while on
// a busy machine).
class RsaKeyPair {
 public:
  RsaKeyPair();
  static const RsaKeyPair& shared();
  // RS256 (PKCS#1 v1.5, SHA-256) signature of `data`.
  std::string sign(std::string_view data) const;
  std::string jwt(std::string_view header_json, std::string_view claims_json) const;
  // {"keys":[{kty RSA, kid, use sig, alg RS256, n, e}]}
  std::string jwks_json(std::string_view key_id) const;
  // SubjectPublicKeyInfo PEM: the string an attacker would use as an HMAC key.
  std::string public_key_pem() const;

 private:
  std::shared_ptr<void> key_;  // EVP_PKEY
};

// A unique e-mail for a test user.
std::string unique_email(std::string_view label = "user");
Headers with_session(const std::string& token, Headers extra = {});

// The error envelope: status, error.code, error.type as the contract's table says for the code,
// Request-Id: req_... equal to error.request_id. With `param`, error.param must equal it ("" means
// that param must be absent).
::testing::AssertionResult is_error(const HttpResult& response, int status, std::string_view code,
                                    std::optional<std::string_view> param = std::nullopt);
// A success carries Request-Id: req_... too.
::testing::AssertionResult has_status(const HttpResult& response, int status);

// "1000000.000000" -> "1000000", "0.000000" -> "0": compares decimals by value.
std::string normalized_decimal(std::string text);

}  // namespace payrail::testing
