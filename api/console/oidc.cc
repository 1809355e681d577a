#include "api/console/oidc.h"

#include <curl/curl.h>
#include <openssl/evp.h>

#include <memory>

#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "schemas/model/common/json.h"

namespace payrail::api::console {
namespace {

using model::Error;
using model::ErrorCode;

constexpr long kExchangeTimeoutMs = 10000;
constexpr std::size_t kResponseBytesMax = 64 * 1024;

Error unavailable() {
  return Error::make(ErrorCode::provider_unavailable,
                     "The identity provider cannot be reached; try signing in again later.");
}

Error refused(std::string message) {
  return Error::make(ErrorCode::session_invalid, std::move(message));
}

struct CurlDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct HeaderListDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

struct Response {
  long status = 0;
  std::string body;
};

std::size_t collect(char* data, std::size_t size, std::size_t count, void* target) {
  auto& body = *static_cast<std::string*>(target);
  const auto bytes = size * count;
  if (body.size() + bytes > kResponseBytesMax) return 0;  // too large: the transfer fails
  body.append(data, bytes);
  return bytes;
}

// https, or http to a loopback host (a provider on this machine, in development and tests).
bool allowed_url(std::string_view url) {
  if (url.starts_with("https://")) return true;
  for (std::string_view loopback : {"http://127.0.0.1:", "http://127.0.0.1/", "http://localhost:",
                                    "http://localhost/", "http://[::1]:", "http://[::1]/"}) {
    if (url.starts_with(loopback)) return true;
  }
  return false;
}

// One request: GET, or POST of a form body; redirects are never followed.
model::Result<Response> fetch(const std::string& url, const std::optional<std::string>& form,
                              const std::optional<std::string>& authorization) {
  if (!allowed_url(url)) {
    infra::log::warn("console.oidc_url_refused", {{"url", url}});
    return unavailable();
  }
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return unavailable();
  std::unique_ptr<curl_slist, HeaderListDeleter> headers;
  const auto add_header = [&headers](const std::string& header) {
    headers.reset(curl_slist_append(headers.release(), header.c_str()));
  };
  add_header("Accept: application/json");
  if (authorization) add_header("Authorization: " + *authorization);
  Response response;
  auto* handle = curl.get();
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 0L);
  curl_easy_setopt(handle, CURLOPT_PROXY, "");  // never a proxy from the environment
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_TIMEOUT_MS, kExchangeTimeoutMs);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 2L);
  curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &response.body);
  if (form) {
    curl_easy_setopt(handle, CURLOPT_POSTFIELDS, form->c_str());
    curl_easy_setopt(handle, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(form->size()));
  }
  const auto result = curl_easy_perform(handle);
  if (result != CURLE_OK) {
    infra::log::warn("console.oidc_request_failed", {{"error", curl_easy_strerror(result)}});
    return unavailable();
  }
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
  return response;
}

model::Result<ProviderEndpoints> discover(const std::string& issuer) {
  auto base = issuer;
  while (base.ends_with('/')) base.pop_back();
  auto response = fetch(base + "/.well-known/openid-configuration", std::nullopt, std::nullopt);
  if (!response.ok()) return response.error();
  auto document = model::json::parse_object(response->body);
  if (response->status != 200 || !document.ok()) return unavailable();
  const auto discovered_issuer = model::json::string_member(*document, "issuer");
  const auto authorization = model::json::string_member(*document, "authorization_endpoint");
  const auto token = model::json::string_member(*document, "token_endpoint");
  // A document naming another issuer is not this provider's (OpenID Connect Discovery 4.3).
  if (!discovered_issuer || *discovered_issuer != issuer || !authorization || !token) {
    infra::log::warn("console.oidc_discovery_invalid", {{"issuer", issuer}});
    return unavailable();
  }
  return ProviderEndpoints{std::string(*authorization), std::string(*token)};
}

// Standard base64 with padding (HTTP Basic credentials).
std::string base64(std::string_view data) {
  std::string encoded(4 * ((data.size() + 2) / 3), '\0');
  const int written = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(encoded.data()),
                                      reinterpret_cast<const unsigned char*>(data.data()),
                                      static_cast<int>(data.size()));
  encoded.resize(static_cast<std::size_t>(written));
  return encoded;
}

std::string form_value(std::string_view name, std::string_view value) {
  return std::string(name) + "=" + url_encode(value);
}

}  // namespace

std::string url_encode(std::string_view text) {
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string encoded;
  for (const char character : text) {
    const auto byte = static_cast<unsigned char>(character);
    const bool unreserved = (byte >= 'A' && byte <= 'Z') || (byte >= 'a' && byte <= 'z') ||
                            (byte >= '0' && byte <= '9') || byte == '-' || byte == '.' ||
                            byte == '_' || byte == '~';
    if (unreserved) {
      encoded.push_back(character);
    } else {
      encoded += '%';
      encoded += kHex[byte >> 4];
      encoded += kHex[byte & 0x0F];
    }
  }
  return encoded;
}

model::Result<std::optional<OidcClient>> OidcClient::create(const infra::Config& config) {
  if (config.console_client_id.empty()) return std::optional<OidcClient>();
  auto verifier = infra::auth::JwtVerifier::create({.issuer = config.idp_issuer,
                                                    .audience = config.console_client_id,
                                                    .jwks_file_path = config.idp_jwks_file});
  if (!verifier.ok()) return verifier.error();
  return std::optional<OidcClient>(OidcClient(config, std::move(verifier).value()));
}

OidcClient::OidcClient(const infra::Config& config, infra::auth::JwtVerifier verifier)
    : issuer_(config.idp_issuer),
      client_id_(config.console_client_id),
      client_secret_(config.console_client_secret),
      verifier_(std::move(verifier)) {
  if (!config.console_authorization_endpoint.empty()) {
    configured_ =
        ProviderEndpoints{config.console_authorization_endpoint, config.console_token_endpoint};
  }
}

model::Result<ProviderEndpoints> OidcClient::endpoints() {
  if (configured_) return *configured_;
  std::lock_guard lock(*discovery_mutex_);
  if (*discovered_) return **discovered_;
  auto found = discover(issuer_);
  if (!found.ok()) return found.error();
  *discovered_ = *found;
  return *found;
}

std::string OidcClient::authorization_url(const ProviderEndpoints& endpoints,
                                          const AuthorizationRequest& request) const {
  const auto challenge =
      infra::crypto::base64url_encode(infra::crypto::sha256(request.code_verifier));
  const char separator = endpoints.authorization.find('?') == std::string::npos ? '?' : '&';
  return endpoints.authorization + separator + form_value("response_type", "code") + "&" +
         form_value("client_id", client_id_) + "&" +
         form_value("redirect_uri", request.redirect_uri) + "&" +
         form_value("scope", "openid email") + "&" + form_value("state", request.state) + "&" +
         form_value("nonce", request.nonce) + "&" + form_value("code_challenge", challenge) + "&" +
         form_value("code_challenge_method", "S256");
}

model::Result<infra::auth::SessionClaims> OidcClient::exchange(
    const ProviderEndpoints& endpoints, const std::string& code,
    const AuthorizationRequest& request) const {
  auto form = form_value("grant_type", "authorization_code") + "&" + form_value("code", code) +
              "&" + form_value("redirect_uri", request.redirect_uri) + "&" +
              form_value("code_verifier", request.code_verifier);
  std::optional<std::string> authorization;
  if (client_secret_.empty()) {
    form += "&" + form_value("client_id", client_id_);  // a public client
  } else {
    // client_secret_basic: each part form-encoded first (RFC 6749 section 2.3.1).
    authorization = "Basic " + base64(url_encode(client_id_) + ":" + url_encode(client_secret_));
  }
  auto response = fetch(endpoints.token, form, authorization);
  if (!response.ok()) return response.error();
  auto document = model::json::parse_object(response->body);
  const auto id_token =
      document.ok() ? model::json::string_member(*document, "id_token") : std::nullopt;
  if (response->status != 200 || !id_token) {
    infra::log::warn("console.oidc_code_refused", {{"status", std::to_string(response->status)}});
    return refused("The identity provider did not accept the sign-in; sign in again.");
  }
  auto claims = verifier_.verify(*id_token, std::time(nullptr));
  if (!claims.ok()) return claims.error();
  if (!claims->nonce || !infra::crypto::constant_time_equals(*claims->nonce, request.nonce)) {
    return refused("The ID token was not issued for this sign-in (nonce).");
  }
  return claims;
}

}  // namespace payrail::api::console
