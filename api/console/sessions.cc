#include "api/console/sessions.h"

#include <algorithm>

#include "api/middleware/organization_gate.h"
#include "api/services.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/store/organizations/console_sessions.h"
#include "schemas/model/organizations/scopes.h"

namespace payrail::api::console {
namespace {

namespace sessions = infra::store::console_sessions;
using model::Error;
using model::ErrorCode;

constexpr std::size_t kSecretBytes = 32;
constexpr std::size_t kSecretCharacters = 43;  // base64url of 32 bytes, unpadded
constexpr std::array kReadScopes{"payouts:read", "balances:read", "webhooks:read",
                                 "organization:read", "collections:read"};

Error session_expired() {
  return Error::make(ErrorCode::session_invalid,
                     "The console session has expired or was signed out; sign in again.");
}

Error csrf_failed(std::string message, std::string param) {
  return Error::make(ErrorCode::csrf_failed, std::move(message), std::move(param));
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::vector<std::string> own_origins(const RequestContext& context) {
  const auto& configured = context.services->config.console_origin;
  std::vector<std::string> origins;
  if (configured.empty()) {
    if (auto host = context.request.header("Host"))
      origins.push_back("https://" + std::string(*host));
    return origins;
  }
  std::string_view rest = configured;
  while (!rest.empty()) {
    const auto comma = rest.find(',');
    const auto origin = trimmed(rest.substr(0, comma));
    if (!origin.empty()) origins.emplace_back(origin);
    rest = comma == std::string_view::npos ? std::string_view() : rest.substr(comma + 1);
  }
  return origins;
}

// The session's CSRF token and the server's origin, for a request that changes state.
model::Status check_csrf(const RequestContext& context, const std::string& csrf_token) {
  if (!changes_state(context.request)) return model::ok_status();
  const auto presented = context.request.header("X-CSRF-Token");
  if (!presented || context.request.header_repeated("X-CSRF-Token") ||
      !infra::crypto::constant_time_equals(*presented, csrf_token)) {
    return csrf_failed("A console request that changes state must send the session's X-CSRF-Token.",
                       "X-CSRF-Token");
  }
  return check_origin(context);
}

// The API-key principal of the member in the organization and mode the request names.
model::Status authenticate_for_organization(const Services& services, const std::string& id_hash,
                                            RequestContext& context) {
  const auto org_id = context.request.header("Payrail-Organization");
  auto found = sessions::find_with_membership(*services.db, id_hash,
                                              org_id ? std::string(*org_id) : std::string());
  if (!found.ok()) return found.error();
  if (!*found) return session_expired();
  if (auto csrf = check_csrf(context, (*found)->session.csrf_token); !csrf.ok()) return csrf;
  if (!org_id) {
    return model::bad_request(
        "With the console session, name the organization in the Payrail-Organization header.",
        "Payrail-Organization");
  }
  const auto mode_header = context.request.header("Payrail-Mode");
  if (!mode_header || context.request.header_repeated("Payrail-Mode")) {
    return model::bad_request("With the console session, send Payrail-Mode: test or live.",
                              "Payrail-Mode");
  }
  const auto mode = model::parse_mode(*mode_header);
  if (!mode) return model::bad_request("Payrail-Mode must be test or live.", "Payrail-Mode");
  const auto& membership = (*found)->membership;
  if (!membership) {
    return Error::make(ErrorCode::resource_missing, "No such organization for this session.");
  }
  // The standing check API keys get (organization_gate.h; found by its argument's namespace
  // should it move to the model).
  if (auto standing = check_standing(membership->status); !standing.ok()) return standing;
  // The member acts, not a key: their subject is what audit trails record as the actor.
  context.api_key = ApiKeyPrincipal{(*found)->session.subject, membership->org_id, *mode,
                                    role_scopes(membership->role), membership->kyb_status};
  return model::ok_status();
}

}  // namespace

std::string new_secret() {
  return infra::crypto::base64url_encode(infra::crypto::random_bytes(kSecretBytes));
}

bool is_secret(std::string_view text) {
  return text.size() == kSecretCharacters && std::all_of(text.begin(), text.end(), [](char c) {
           return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                  c == '-' || c == '_';
         });
}

model::Result<std::optional<std::string>> read_cookie(const HttpRequest& request,
                                                      std::string_view name) {
  const auto header = request.header("Cookie");
  if (!header) return std::optional<std::string>();
  std::optional<std::string> found;
  std::string_view rest = *header;
  while (!rest.empty()) {
    // Repeated Cookie fields arrive joined by ", " (message.h); both separators split pairs.
    const auto end = rest.find_first_of(";,");
    const auto pair = trimmed(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
    const auto equals = pair.find('=');
    if (equals == std::string_view::npos || trimmed(pair.substr(0, equals)) != name) continue;
    if (found) return session_expired();
    found = std::string(trimmed(pair.substr(equals + 1)));
  }
  return found;
}

std::string session_cookie(const std::string& id, int max_age_seconds) {
  return std::string(kSessionCookie) + "=" + id + "; Max-Age=" + std::to_string(max_age_seconds) +
         "; Path=/; Secure; HttpOnly; SameSite=Strict";
}

std::string sign_in_cookie(const std::string& value, int max_age_seconds) {
  return std::string(kSignInCookie) + "=" + value + "; Max-Age=" + std::to_string(max_age_seconds) +
         "; Path=/; Secure; HttpOnly; SameSite=Lax";
}

std::string deleted_cookie(std::string_view name) {
  return std::string(name) + "=; Max-Age=0; Path=/; Secure; HttpOnly; SameSite=Strict";
}

model::Result<std::string> start_session(const Services& services, const std::string& subject,
                                         const std::string& email, std::string_view sign_in) {
  const auto id = new_secret();
  const int ttl_seconds = services.config.console_session_ttl_s;
  auto created = sessions::create(*services.db, {infra::crypto::sha256_hex(id), subject, email,
                                                 new_secret(), std::string(sign_in), ttl_seconds});
  if (!created.ok()) return created.error();
  return session_cookie(id, ttl_seconds);
}

std::vector<std::string> role_scopes(std::string_view role) {
  if (role == "owner") {
    return {model::kGrantableScopes.begin(), model::kGrantableScopes.end()};
  }
  return {kReadScopes.begin(), kReadScopes.end()};
}

bool changes_state(const HttpRequest& request) {
  return request.method != "GET" && request.method != "HEAD";
}

model::Status check_origin(const RequestContext& context) {
  const auto origin = context.request.header("Origin");
  const auto allowed = own_origins(context);
  if (origin && !context.request.header_repeated("Origin") &&
      std::find(allowed.begin(), allowed.end(), *origin) != allowed.end()) {
    return model::ok_status();
  }
  return csrf_failed(
      "A console request that changes state must come from the console's own "
      "origin (the Origin header).",
      "Origin");
}

model::Status authenticate(const Services& services, Access access, const std::string& session_id,
                           RequestContext& context) {
  if (!is_secret(session_id)) return session_expired();
  const auto id_hash = infra::crypto::sha256_hex(session_id);
  if (access == Access::api_key) return authenticate_for_organization(services, id_hash, context);
  auto found = sessions::find(*services.db, id_hash);
  if (!found.ok()) return found.error();
  if (!*found) return session_expired();
  if (auto csrf = check_csrf(context, (*found)->csrf_token); !csrf.ok()) return csrf;
  context.session = SessionPrincipal{(*found)->subject, (*found)->email};
  return model::ok_status();
}

}  // namespace payrail::api::console
