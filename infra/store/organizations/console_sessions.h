// The web console's storage (0015_console.sql): members' browser sessions, the OpenID Connect
// sign-ins in progress, and what a member may see (their organizations and roles).
//
// Sessions and sign-ins are found by the SHA-256 (hex) of the secret the browser holds; the
// secrets themselves are never stored. Expired rows are never returned, and are deleted when a
// new session or sign-in is written.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "schemas/model/organizations/organization_lifecycle.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::console_sessions {

struct NewSession {
  std::string id_hash;  // sha256_hex of the cookie's id
  std::string subject;
  std::string email;
  std::string csrf_token;
  std::string sign_in;  // "oidc" or "development"
  int ttl_seconds = 0;
};

struct SessionRow {
  std::string subject;
  std::string email;
  std::string csrf_token;
  std::string sign_in;
  std::string expires_at;  // ISO 8601 UTC
};

model::Status create(pg::Pool& pool, const NewSession& session);
model::Result<std::optional<SessionRow>> find(pg::Pool& pool, const std::string& id_hash);
model::Status remove(pg::Pool& pool, const std::string& id_hash);

// A member's place in one organization, with the organization's standing.
struct Membership {
  std::string org_id;
  std::string display_name;
  std::string role;  // "owner" or "member" (organization_members)
  model::OrganizationStatus status = model::OrganizationStatus::active;
  model::KybStatus kyb_status = model::KybStatus::unverified;
};

// A session and, when the session's member belongs to `org_id`, that membership: one round trip
// for the authorisation of every console request.
struct SessionWithMembership {
  SessionRow session;
  std::optional<Membership> membership;
};
model::Result<std::optional<SessionWithMembership>> find_with_membership(pg::Pool& pool,
                                                                         const std::string& id_hash,
                                                                         const std::string& org_id);

// Every organization the subject belongs to, oldest membership first (at most 100).
model::Result<std::vector<Membership>> memberships(pg::Pool& pool, const std::string& subject);

struct NewSignIn {
  std::string state_hash;    // sha256_hex of the `state` parameter
  std::string browser_hash;  // sha256_hex of the sign-in cookie
  std::string nonce;
  std::string code_verifier;
  std::string redirect_uri;
  int ttl_seconds = 0;
};

struct SignInRow {
  std::string browser_hash;
  std::string nonce;
  std::string code_verifier;
  std::string redirect_uri;
};

model::Status create_sign_in(pg::Pool& pool, const NewSignIn& sign_in);
// Deletes and returns the unexpired sign-in: a state is used at most once.
model::Result<std::optional<SignInRow>> take_sign_in(pg::Pool& pool, const std::string& state_hash);

}  // namespace payrail::infra::store::console_sessions
