// Authentication of API keys and identity-provider sessions.
//
// API keys: the visible prefix selects candidates, the SHA-256 of the presented secret is
// compared with each stored hash in constant time. Every request reads the key from Postgres, so a
// revocation is effective on the next request in every API process; the requests that arrive
// while a read runs are read together next, by one statement (pg::GroupedReads). `last_used_at`
// is kept in memory and flushed in one batched UPDATE every second, so the hot path never writes.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "api/context.h"
#include "infra/plumbing/auth/jwt.h"
#include "infra/plumbing/pg/grouped_reads.h"
#include "infra/plumbing/pg/pool.h"
#include "infra/store/organizations/api_keys.h"
#include "schemas/model/common/result.h"

namespace payrail::api {

struct Credentials {
  std::optional<std::string> api_key;  // X-API-Key, or a Bearer token that starts with ck_
  std::optional<std::string> session;  // any other Bearer token
};

// Reads X-API-Key and Authorization. A malformed Authorization header is an error.
model::Result<Credentials> read_credentials(const HttpRequest& request);

class ApiKeyAuthenticator {
 public:
  explicit ApiKeyAuthenticator(infra::pg::Pool& pool,
                               std::chrono::milliseconds flush_interval = std::chrono::seconds(1),
                               std::size_t lookup_group_max = 32);
  ~ApiKeyAuthenticator();

  // api_key_invalid for unknown or revoked keys, org_suspended for suspended or closed orgs.
  model::Result<ApiKeyPrincipal> authenticate(std::string_view secret);
  void flush_last_used();

 private:
  void run_flusher();

  infra::pg::Pool& pool_;
  infra::pg::GroupedReads<std::string, infra::store::api_keys::KeyCandidate> lookups_;
  std::chrono::milliseconds flush_interval_;
  std::mutex mutex_;
  std::map<std::string, std::chrono::system_clock::time_point> pending_last_used_;
  std::condition_variable stop_signal_;
  bool stopping_ = false;
  std::thread flusher_;
};

model::Result<SessionPrincipal> authenticate_session(const infra::auth::JwtVerifier& verifier,
                                                     std::string_view token);

}  // namespace payrail::api
