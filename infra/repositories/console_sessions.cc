#include "infra/repositories/console_sessions.h"

#include <stdexcept>

#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::console_sessions {
namespace {

constexpr int kMembershipsMax = 100;

// Expired sessions and sign-ins go when new ones are written: the table holds what is live plus
// what expired since the last sign-in.
constexpr pg::Statement kDeleteExpired{"console_sessions_delete_expired", R"sql(
WITH sessions AS (DELETE FROM console_sessions WHERE expires_at < now())
DELETE FROM console_sign_ins WHERE expires_at < now())sql"};

constexpr pg::Statement kInsert{"console_sessions_insert", R"sql(
INSERT INTO console_sessions (id_hash, subject, email, csrf_token, sign_in, expires_at)
VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)))sql"};

#define PAYRAIL_CONSOLE_SESSION_COLUMNS \
  "s.subject, s.email, s.csrf_token, s.sign_in, " PAYRAIL_TIMESTAMP("s.expires_at")

constexpr pg::Statement kFind{"console_sessions_find",
                              "SELECT " PAYRAIL_CONSOLE_SESSION_COLUMNS
                              " FROM console_sessions s WHERE s.id_hash = $1 "
                              "AND s.expires_at > now()"};

constexpr pg::Statement kFindWithMembership{
    "console_sessions_find_with_membership",
    "SELECT " PAYRAIL_CONSOLE_SESSION_COLUMNS
    ", o.id, o.display_name, m.role, o.status, o.kyb_status FROM console_sessions s "
    "LEFT JOIN organization_members m ON m.subject = s.subject AND m.org_id = $2 "
    "LEFT JOIN organizations o ON o.id = m.org_id "
    "WHERE s.id_hash = $1 AND s.expires_at > now()"};

constexpr pg::Statement kRemove{"console_sessions_remove",
                                "DELETE FROM console_sessions WHERE id_hash = $1"};

constexpr pg::Statement kMemberships{
    "console_sessions_memberships",
    "SELECT o.id, o.display_name, m.role, o.status, o.kyb_status FROM organization_members m "
    "JOIN organizations o ON o.id = m.org_id WHERE m.subject = $1 "
    "ORDER BY m.created_at, o.id LIMIT $2"};

constexpr pg::Statement kInsertSignIn{"console_sign_ins_insert", R"sql(
INSERT INTO console_sign_ins (state_hash, browser_hash, nonce, code_verifier, redirect_uri,
                              expires_at)
VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)))sql"};

constexpr pg::Statement kTakeSignIn{"console_sign_ins_take", R"sql(
DELETE FROM console_sign_ins WHERE state_hash = $1
RETURNING browser_hash, nonce, code_verifier, redirect_uri, expires_at > now())sql"};

SessionRow read_session(const pqxx::row& row) {
  return SessionRow{row[0].as<std::string>(), row[1].as<std::string>(), row[2].as<std::string>(),
                    row[3].as<std::string>(), row[4].as<std::string>()};
}

// Five columns from `first`: organization id, display name, role, status, kyb_status.
Membership read_membership(const pqxx::row& row, int first) {
  const auto status = model::parse_organization_status(row[first + 3].as<std::string>());
  const auto kyb_status = model::parse_kyb_status(row[first + 4].as<std::string>());
  // The tables' CHECK constraints admit exactly the enums' names.
  if (!status || !kyb_status) throw std::logic_error("organization standing outside the model");
  return Membership{row[first].as<std::string>(), row[first + 1].as<std::string>(),
                    row[first + 2].as<std::string>(), *status, *kyb_status};
}

}  // namespace

model::Status create(pg::Pool& pool, const NewSession& session) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kDeleteExpired);
    pg::exec(tx, kInsert, session.id_hash, session.subject, session.email, session.csrf_token,
             session.sign_in, session.ttl_seconds);
    return model::ok_status();
  });
}

model::Result<std::optional<SessionRow>> find(pg::Pool& pool, const std::string& id_hash) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::optional<SessionRow>> {
    const auto rows = pg::exec(tx, kFind, id_hash);
    if (rows.empty()) return std::optional<SessionRow>();
    return std::optional<SessionRow>(read_session(rows[0]));
  });
}

model::Status remove(pg::Pool& pool, const std::string& id_hash) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Status {
    pg::exec(tx, kRemove, id_hash);
    return model::ok_status();
  });
}

model::Result<std::optional<SessionWithMembership>> find_with_membership(
    pg::Pool& pool, const std::string& id_hash, const std::string& org_id) {
  return pool.autocommit(
      [&](pqxx::nontransaction& tx) -> model::Result<std::optional<SessionWithMembership>> {
        const auto rows = pg::exec(tx, kFindWithMembership, id_hash, org_id);
        if (rows.empty()) return std::optional<SessionWithMembership>();
        SessionWithMembership found{read_session(rows[0]), std::nullopt};
        if (!rows[0][5].is_null()) found.membership = read_membership(rows[0], 5);
        return std::optional<SessionWithMembership>(std::move(found));
      });
}

model::Result<std::vector<Membership>> memberships(pg::Pool& pool, const std::string& subject) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<std::vector<Membership>> {
    std::vector<Membership> found;
    for (const auto& row : pg::exec(tx, kMemberships, subject, kMembershipsMax)) {
      found.push_back(read_membership(row, 0));
    }
    return found;
  });
}

model::Status create_sign_in(pg::Pool& pool, const NewSignIn& sign_in) {
  return pool.transact([&](pqxx::work& tx) -> model::Status {
    pg::exec(tx, kDeleteExpired);
    pg::exec(tx, kInsertSignIn, sign_in.state_hash, sign_in.browser_hash, sign_in.nonce,
             sign_in.code_verifier, sign_in.redirect_uri, sign_in.ttl_seconds);
    return model::ok_status();
  });
}

model::Result<std::optional<SignInRow>> take_sign_in(pg::Pool& pool,
                                                     const std::string& state_hash) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<SignInRow>> {
    const auto rows = pg::exec(tx, kTakeSignIn, state_hash);
    if (rows.empty() || !rows[0][4].as<bool>()) return std::optional<SignInRow>();
    return std::optional<SignInRow>(
        SignInRow{rows[0][0].as<std::string>(), rows[0][1].as<std::string>(),
                  rows[0][2].as<std::string>(), rows[0][3].as<std::string>()});
  });
}

}  // namespace payrail::infra::repositories::console_sessions
