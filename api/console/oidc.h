// The web console's OpenID Connect client: authorization code flow with PKCE (S256), `state`
// and `nonce` (docs/console.md "Signing in").
//
// The provider is PAYRAIL_IDP_ISSUER; its endpoints come from discovery
// (<issuer>/.well-known/openid-configuration, read on the first sign-in and kept) unless both are
// configured. The code is exchanged with libcurl under the same rules as webhook deliveries: no
// redirects, no proxy from the environment, one total timeout, a bounded response; https only,
// except a provider on a loopback address (a development or test provider). The ID token is
// verified by the API's own verifier (infra/plumbing/auth/jwt.h: RS256 with PAYRAIL_IDP_JWKS_FILE, `iss`,
// `exp`, `nbf`) with the console's client id as audience, and its `nonce` must be the sign-in's.
#pragma once

#include <ctime>
#include <mutex>
#include <optional>
#include <string>

#include "infra/plumbing/auth/jwt.h"
#include "infra/programs/config/config.h"
#include "schemas/model/common/result.h"

namespace payrail::api::console {

struct ProviderEndpoints {
  std::string authorization;
  std::string token;
};

// What the browser is sent to the provider with; stored (hashed where secret) until the callback.
struct AuthorizationRequest {
  std::string state;
  std::string nonce;
  std::string code_verifier;
  std::string redirect_uri;
};

class OidcClient {
 public:
  // nullopt when the console has no client id (OpenID Connect sign-in is off); an error when the
  // ID-token verifier cannot be built (PAYRAIL_IDP_JWKS_FILE unreadable, say).
  static model::Result<std::optional<OidcClient>> create(const infra::Config& config);

  // The provider's endpoints (503 provider_unavailable when discovery fails; tried again next).
  model::Result<ProviderEndpoints> endpoints();

  // The authorization endpoint with response_type=code, client_id, redirect_uri, scope
  // "openid email", state, nonce and the S256 code_challenge of the verifier.
  std::string authorization_url(const ProviderEndpoints& endpoints,
                                const AuthorizationRequest& request) const;

  // Exchanges the code and verifies the ID token: its claims, or 401 session_invalid (the
  // provider refused the code, or the token is tampered, expired, for another audience or
  // another sign-in), or 503 provider_unavailable (the provider could not be reached).
  model::Result<infra::auth::SessionClaims> exchange(const ProviderEndpoints& endpoints,
                                                     const std::string& code,
                                                     const AuthorizationRequest& request) const;

 private:
  OidcClient(const infra::Config& config, infra::auth::JwtVerifier verifier);

  std::string issuer_;
  std::string client_id_;
  std::string client_secret_;
  std::optional<ProviderEndpoints> configured_;
  infra::auth::JwtVerifier verifier_;
  std::shared_ptr<std::mutex> discovery_mutex_ = std::make_shared<std::mutex>();
  std::shared_ptr<std::optional<ProviderEndpoints>> discovered_ =
      std::make_shared<std::optional<ProviderEndpoints>>();
};

// Percent-encoding for a query or form value (RFC 3986 unreserved characters stay).
std::string url_encode(std::string_view text);

}  // namespace payrail::api::console
