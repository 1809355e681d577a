#include "api/console/sign_in.h"

#include <array>

#include "api/console/oidc.h"
#include "api/console/sessions.h"
#include "api/console/static_files.h"
#include "api/handlers/common.h"
#include "api/http/pagination.h"
#include "api/services.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/organizations/console_sessions.h"

namespace payrail::api::console {
namespace {

namespace sessions = infra::store::console_sessions;
using model::Error;
using model::ErrorCode;

constexpr int kSignInTtlSeconds = 600;
constexpr std::size_t kEmailLengthMax = 320;
constexpr std::size_t kProviderErrorLengthMax = 100;
constexpr std::array kDevelopmentFields{
    model::json::Field{"email", model::json::Kind::string, true}};

Error unknown_sign_in() {
  return Error::make(ErrorCode::session_invalid,
                     "This sign-in is unknown, was used already or has expired; sign in again.");
}

HttpResponse redirect(std::string location) {
  HttpResponse response;
  response.status = 302;
  response.headers.emplace_back("Location", std::move(location));
  response.headers.emplace_back("Cache-Control", "no-store");
  add_security_headers(response);
  return response;
}

// Where the provider sends the browser back: the console's own origin (the first of
// PAYRAIL_CONSOLE_ORIGIN, else the one the browser addressed).
std::string redirect_uri(const RequestContext& context) {
  const auto& configured = context.services->config.console_origin;
  std::string origin = configured.substr(0, configured.find(','));
  if (origin.empty())
    origin = "https://" + std::string(context.request.header("Host").value_or(""));
  return origin + "/console/callback";
}

model::Result<HttpResponse> sign_in_with_provider(RequestContext& context) {
  if (auto status = reject_unknown_query(context.request, {}); !status.ok()) return status.error();
  auto* client = context.services->console_sign_in;
  if (client == nullptr) {
    return Error::make(ErrorCode::resource_missing,
                       "Sign-in with an identity provider is not configured.");
  }
  auto endpoints = client->endpoints();
  if (!endpoints.ok()) return endpoints.error();
  const AuthorizationRequest request{new_secret(), new_secret(), new_secret(),
                                     redirect_uri(context)};
  const auto browser = new_secret();
  auto stored = sessions::create_sign_in(
      *context.services->db,
      {infra::crypto::sha256_hex(request.state), infra::crypto::sha256_hex(browser), request.nonce,
       request.code_verifier, request.redirect_uri, kSignInTtlSeconds});
  if (!stored.ok()) return stored.error();
  auto response = redirect(client->authorization_url(*endpoints, request));
  response.headers.emplace_back("Set-Cookie", sign_in_cookie(browser, kSignInTtlSeconds));
  return response;
}

// The sign-in this callback finishes: the one its `state` names, started in this browser.
model::Result<AuthorizationRequest> take_sign_in(const RequestContext& context,
                                                 const std::string& state) {
  auto browser = read_cookie(context.request, kSignInCookie);
  if (!browser.ok()) return browser.error();
  auto found = sessions::take_sign_in(*context.services->db, infra::crypto::sha256_hex(state));
  if (!found.ok()) return found.error();
  if (!*found) return unknown_sign_in();
  if (!*browser || !infra::crypto::constant_time_equals(infra::crypto::sha256_hex(**browser),
                                                        (*found)->browser_hash)) {
    return Error::make(ErrorCode::session_invalid,
                       "This sign-in was started in another browser; sign in again.");
  }
  return AuthorizationRequest{state, (*found)->nonce, (*found)->code_verifier,
                              (*found)->redirect_uri};
}

model::Result<std::optional<std::string>> query(const RequestContext& context, const char* name) {
  return context.request.query_value(name);
}

model::Result<HttpResponse> provider_callback(RequestContext& context) {
  auto* client = context.services->console_sign_in;
  if (client == nullptr) {
    return Error::make(ErrorCode::resource_missing,
                       "Sign-in with an identity provider is not configured.");
  }
  auto state = query(context, "state");
  if (!state.ok()) return state.error();
  if (!*state) return model::bad_request("The callback needs the state parameter.", "state");
  auto request = take_sign_in(context, **state);
  if (!request.ok()) return request.error();
  auto provider_error = query(context, "error");
  if (!provider_error.ok()) return provider_error.error();
  if (*provider_error) {
    return Error::make(ErrorCode::session_invalid,
                       "The identity provider did not sign you in (" +
                           (*provider_error)->substr(0, kProviderErrorLengthMax) + ").");
  }
  // RFC 9207: a provider that names itself must be the one the sign-in went to.
  auto issuer = query(context, "iss");
  if (!issuer.ok()) return issuer.error();
  if (*issuer && **issuer != context.services->config.idp_issuer) {
    return Error::make(ErrorCode::session_invalid, "The callback came from another provider.");
  }
  auto code = query(context, "code");
  if (!code.ok()) return code.error();
  if (!*code) return model::bad_request("The callback needs the code parameter.", "code");
  auto endpoints = client->endpoints();
  if (!endpoints.ok()) return endpoints.error();
  auto claims = client->exchange(*endpoints, **code, *request);
  if (!claims.ok()) {
    infra::log::info("console.sign_in_refused", {{"reason", claims.error().message}});
    return claims.error();
  }
  auto cookie = start_session(*context.services, claims->subject, claims->email, "oidc");
  if (!cookie.ok()) return cookie.error();
  infra::log::info("console.signed_in", {{"method", "oidc"}});
  auto response = redirect("/console/");
  response.headers.emplace_back("Set-Cookie", *cookie);
  response.headers.emplace_back("Set-Cookie", deleted_cookie(kSignInCookie));
  return response;
}

// An e-mail address as a development identity: clean text with an @, no spaces.
model::Status check_email(std::string_view email) {
  if (auto status = model::json::check_text(email, "email", kEmailLengthMax); !status.ok()) {
    return status;
  }
  const auto at = email.find('@');
  if (at == 0 || at == std::string_view::npos || at + 1 == email.size() ||
      email.find_first_of(" \t\r\n") != std::string_view::npos) {
    return model::bad_request("email must be an e-mail address such as you@example.com.", "email");
  }
  return model::ok_status();
}

model::Result<HttpResponse> sign_in_for_development(RequestContext& context) {
  if (!development_sign_in_enabled(context)) {
    return Error::make(ErrorCode::resource_missing,
                       "The development sign-in exists only when PAYRAIL_IDP_HS256_SECRET is "
                       "configured.");
  }
  // A sign-in changes state: a foreign page must not sign the browser in as someone else.
  if (auto status = check_origin(context); !status.ok()) return status.error();
  auto body = parse_body(context, kDevelopmentFields);
  if (!body.ok()) return body.error();
  const std::string email(*model::json::string_member(*body, "email"));
  if (auto status = check_email(email); !status.ok()) return status.error();
  // The subject `payrail dev-session --email` gives the same address (infra/programs/cli/).
  auto cookie = start_session(*context.services, "dev|" + email, email, "development");
  if (!cookie.ok()) return cookie.error();
  infra::log::info("console.signed_in", {{"method", "development"}});
  auto response = json_object_response(200, [](model::json::Writer& writer) {
    writer.StartObject();
    model::json::write_key(writer, "signed_in");
    writer.Bool(true);
    writer.EndObject();
  });
  response.headers.emplace_back("Set-Cookie", *cookie);
  response.headers.emplace_back("Cache-Control", "no-store");
  return response;
}

model::Result<HttpResponse> sign_out(RequestContext& context) {
  if (auto status = check_no_body(context); !status.ok()) return status.error();
  auto cookie = read_cookie(context.request, kSessionCookie);
  if (!cookie.ok()) return cookie.error();
  if (*cookie) {
    auto removed = sessions::remove(*context.services->db, infra::crypto::sha256_hex(**cookie));
    if (!removed.ok()) return removed.error();
  }
  auto response = HttpResponse::no_content();
  response.headers.emplace_back("Set-Cookie", deleted_cookie(kSessionCookie));
  return response;
}

}  // namespace

bool development_sign_in_enabled(const RequestContext& context) {
  return context.services->config.idp_hs256_secret.has_value();
}

void register_sign_in_routes(Router& router) {
  router.add({"GET", "/console/sign-in", Access::open, "", sync(sign_in_with_provider)});
  router.add({"GET", "/console/callback", Access::open, "", sync(provider_callback)});
  router.add(
      {"POST", "/console/sign-in/development", Access::open, "", sync(sign_in_for_development)});
  router.add({"POST", "/console/sign-out", Access::session, "", sync(sign_out)});
}

}  // namespace payrail::api::console
