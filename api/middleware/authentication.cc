#include "api/middleware/authentication.h"

#include <strings.h>

#include <ctime>

#include "api/middleware/organization_gate.h"
#include "infra/plumbing/crypto/crypto.h"
#include "infra/plumbing/log/log.h"
#include "infra/store/organizations/api_keys.h"

namespace payrail::api {
namespace {

namespace api_keys = infra::store::api_keys;

constexpr std::size_t kPendingLastUsedMax = 100000;

model::Error invalid_key() {
  return model::Error::make(model::ErrorCode::api_key_invalid,
                            "The API key is not valid (unknown or revoked).");
}

}  // namespace

model::Result<Credentials> read_credentials(const HttpRequest& request) {
  // Two credentials that could name different principals are refused rather than resolved: a
  // proxy and this server might otherwise pick different ones.
  const auto ambiguous = model::Error::make(
      model::ErrorCode::credentials_ambiguous,
      "Send exactly one credential: one X-API-Key header or one Authorization header, or both "
      "carrying the same API key.");
  if (request.header_repeated("X-API-Key") || request.header_repeated("Authorization")) {
    return ambiguous;
  }
  Credentials credentials;
  if (auto key = request.header("X-API-Key")) credentials.api_key = std::string(*key);
  if (auto authorization = request.header("Authorization")) {
    // The scheme name is case-insensitive (RFC 9110 section 11.1).
    constexpr std::string_view kBearer = "Bearer ";
    if (authorization->size() <= kBearer.size() ||
        strncasecmp(authorization->data(), kBearer.data(), kBearer.size()) != 0) {
      return model::Error::make(model::ErrorCode::api_key_invalid,
                                "The Authorization header must be 'Bearer <credential>'.");
    }
    const auto token = std::string(authorization->substr(kBearer.size()));
    if (credentials.api_key && *credentials.api_key != token) return ambiguous;
    if (token.starts_with("ck_")) {
      credentials.api_key = token;
    } else {
      credentials.session = token;
    }
  }
  return credentials;
}

ApiKeyAuthenticator::ApiKeyAuthenticator(infra::pg::Pool& pool,
                                         std::chrono::milliseconds flush_interval,
                                         std::size_t lookup_group_max)
    : pool_(pool),
      lookups_(
          [&pool](const std::vector<std::string>& prefixes) {
            return api_keys::find_by_prefixes(pool, prefixes);
          },
          lookup_group_max),
      flush_interval_(flush_interval) {
  flusher_ = std::thread([this] { run_flusher(); });
}

ApiKeyAuthenticator::~ApiKeyAuthenticator() {
  {
    std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  stop_signal_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  flush_last_used();
}

model::Result<ApiKeyPrincipal> ApiKeyAuthenticator::authenticate(std::string_view secret) {
  const auto prefix = api_keys::visible_prefix(secret);
  if (!prefix) return invalid_key();
  auto candidates = lookups_.read(*prefix);
  if (!candidates.ok()) return candidates.error();
  const auto presented_hash = infra::crypto::sha256(secret);
  for (const auto& candidate : *candidates) {
    if (!infra::crypto::constant_time_equals(presented_hash, candidate.secret_hash)) continue;
    if (auto standing = model::check_standing(candidate.org_status); !standing.ok()) {
      return standing.error();
    }
    {
      std::lock_guard lock(mutex_);
      if (pending_last_used_.size() < kPendingLastUsedMax ||
          pending_last_used_.contains(candidate.key_id)) {
        pending_last_used_[candidate.key_id] = std::chrono::system_clock::now();
      }
    }
    return ApiKeyPrincipal{candidate.key_id, candidate.org_id, candidate.mode, candidate.scopes,
                           candidate.kyb_status};
  }
  return invalid_key();
}

void ApiKeyAuthenticator::flush_last_used() {
  std::vector<api_keys::LastUse> uses;
  {
    std::lock_guard lock(mutex_);
    uses.assign(pending_last_used_.begin(), pending_last_used_.end());
    pending_last_used_.clear();
  }
  if (uses.empty()) return;
  if (auto status = api_keys::record_last_used(pool_, uses); !status.ok()) {
    infra::log::warn("api_keys.last_used_flush_failed", {{"error", status.error().message}});
  }
}

void ApiKeyAuthenticator::run_flusher() {
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    stop_signal_.wait_for(lock, flush_interval_, [this] { return stopping_; });
    lock.unlock();
    flush_last_used();
    lock.lock();
  }
}

model::Result<SessionPrincipal> authenticate_session(const infra::auth::JwtVerifier& verifier,
                                                     std::string_view token) {
  auto claims = verifier.verify(token, std::time(nullptr));
  if (!claims.ok()) return claims.error();
  return SessionPrincipal{claims->subject, claims->email};
}

}  // namespace payrail::api
