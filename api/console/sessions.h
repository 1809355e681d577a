// The web console's sessions and the one authorisation mechanism of its requests (docs/console.md
// "Security model").
//
// After sign-in the browser holds `__Host-payrail_console`: a random 256-bit id (Secure, HttpOnly,
// SameSite=Strict, Path=/), of which the server keeps only the SHA-256. A request that carries it
// and no other credential is authenticated here, once, for every route:
//   - a route for API keys gets the principal an API key of the organization named by
//     Payrail-Organization, in the mode named by Payrail-Mode, would have, with the scopes the
//     member's role grants, so the /v1 handlers serve the console unchanged;
//   - a route for sessions (approve, reject, create organization, ...) gets the member's session
//     principal, as a bearer identity-provider session would.
// Any method but GET and HEAD must also carry X-CSRF-Token equal to the session's token and an
// Origin equal to the server's own; otherwise 403 csrf_failed, before any handler runs.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/context.h"
#include "api/router.h"
#include "schemas/model/common/result.h"

namespace payrail::api::console {

inline constexpr std::string_view kSessionCookie = "__Host-payrail_console";
inline constexpr std::string_view kSignInCookie = "__Host-payrail_console_sign_in";

// 256 random bits, base64url without padding (43 characters).
std::string new_secret();
bool is_secret(std::string_view text);

// The value of cookie `name` in the Cookie header; nullopt when absent. A name sent twice is
// refused (session_invalid): two values could name two sessions.
model::Result<std::optional<std::string>> read_cookie(const HttpRequest& request,
                                                      std::string_view name);

// Set-Cookie values: the session cookie, the sign-in cookie (SameSite=Lax: the identity
// provider's redirect back is a cross-site navigation) and one that deletes a cookie.
std::string session_cookie(const std::string& id, int max_age_seconds);
std::string sign_in_cookie(const std::string& value, int max_age_seconds);
std::string deleted_cookie(std::string_view name);

// Creates a session for the member and returns its Set-Cookie value.
model::Result<std::string> start_session(const Services& services, const std::string& subject,
                                         const std::string& email, std::string_view sign_in);

// The scopes a member's role grants: an owner every grantable scope, a member the read scopes.
std::vector<std::string> role_scopes(std::string_view role);

// Whether the request changes state (any method but GET and HEAD).
bool changes_state(const HttpRequest& request);

// 403 csrf_failed unless Origin is the server's own (PAYRAIL_CONSOLE_ORIGIN, else
// https://<Host>).
model::Status check_origin(const RequestContext& context);

// The mechanism above, for a request whose only credential is the session cookie `session_id`.
model::Status authenticate(const Services& services, Access access, const std::string& session_id,
                           RequestContext& context);

}  // namespace payrail::api::console
