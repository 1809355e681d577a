// Verification of identity-provider session tokens (OIDC-style JWTs sent as
// `Authorization: Bearer <jwt>`), plus HS256 minting for development sessions.
#pragma once

#include <openssl/types.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::auth {

// Tokens larger than this are rejected before any decoding or parsing.
inline constexpr std::size_t kMaxSessionTokenBytes = 8 * 1024;

struct JwtConfig {
  std::string issuer;
  std::string audience;
  // Development: PAYRAIL_IDP_HS256_SECRET.
  std::optional<std::string> hs256_secret;
  // Production: PAYRAIL_IDP_JWKS_FILE, the identity provider's RS256 public keys.
  std::optional<std::string> jwks_file_path;
  std::int64_t leeway_seconds = 30;
};

struct SessionClaims {
  std::string subject;
  std::string email;
  std::int64_t expires_at_unix = 0;
  // OpenID Connect ID tokens: the `nonce` the sign-in sent, when the token has one (a string).
  std::optional<std::string> nonce;
};

enum class JwtAlgorithm { hs256, rs256 };

namespace detail {
// One RS256 public key from the JWKS file; the EVP_PKEY is never modified after loading.
struct RsaVerificationKey {
  std::optional<std::string> key_id;
  std::shared_ptr<EVP_PKEY> key;
};
}  // namespace detail

// Immutable after create(), so one instance may serve concurrent verify() calls; copies share
// the RSA keys.
class JwtVerifier {
 public:
  // Exactly one of hs256_secret / jwks_file_path must be set. The HS256 secret must be at least
  // 32 bytes (RFC 7518 section 3.2). The JWKS file is read once, here; it must hold at least one
  // usable RSA signing key of 2048 bits or more, and any malformed RSA entry fails the load.
  // Config errors are internal_error.
  static model::Result<JwtVerifier> create(const JwtConfig& config);

  // Every failure is session_invalid with a short message that never echoes token content; a
  // sub or email claim that is not clean text (model/text.h), too long (in characters) or has
  // control characters also names the claim in `param` (a missing claim does not).
  model::Result<SessionClaims> verify(std::string_view token, std::int64_t now_unix) const;

  JwtAlgorithm algorithm() const { return algorithm_; }

 private:
  JwtVerifier() = default;
  model::Status check_signature(const std::optional<std::string>& key_id,
                                std::string_view signing_input, std::string_view signature) const;

  JwtAlgorithm algorithm_ = JwtAlgorithm::hs256;
  std::string issuer_;
  std::string audience_;
  std::string hs256_secret_;
  std::vector<detail::RsaVerificationKey> rsa_keys_;
  std::int64_t leeway_seconds_ = 0;
};

// Development minting (CLI `payrail dev-session`): an HS256 token with header
// {"alg":"HS256","typ":"JWT"} and claims iss, aud, sub, email, iat, nbf=iat, exp=iat+ttl_seconds.
// Returns an empty string (which never verifies) when config.hs256_secret is not set.
std::string mint_hs256_session(const JwtConfig& config, std::string_view subject,
                               std::string_view email, std::int64_t now_unix,
                               std::int64_t ttl_seconds);

}  // namespace payrail::infra::auth
