// Signing in and out of the web console (docs/console.md "Signing in"):
//   GET  /console/sign-in               OpenID Connect: to the provider (PKCE S256, state, nonce)
//   GET  /console/callback              back from it: code exchanged, ID token verified, session
//   POST /console/sign-in/development   the development sign-in (e-mail only), which exists only
//                                       when PAYRAIL_IDP_HS256_SECRET is configured
//   POST /console/sign-out              ends the session (CSRF-checked like every state change)
#pragma once

#include "api/router.h"

namespace payrail::api::console {

void register_sign_in_routes(Router& router);

// Whether the development sign-in exists (the development session secret is configured).
bool development_sign_in_enabled(const RequestContext& context);

}  // namespace payrail::api::console
