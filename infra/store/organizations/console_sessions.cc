#include "infra/store/organizations/console_sessions.h"

#include "infra/store/sql/sql.h"
#include "schemas/model/common/invariant.h"

namespace payrail::infra::store::console_sessions {
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

// The columns read_session() and read_membership() read, by name.
constexpr auto kSessionColumns = sql::concat("s.subject, s.email, s.csrf_token, s.sign_in, ",
                                             sql::timestamp("s.expires_at", "expires_at"));
constexpr auto kMembershipColumns =
    sql::concat("o.id AS org_id, o.display_name, m.role, o.status, o.kyb_status");

constexpr auto kFindSql = sql::concat("SELECT ", kSessionColumns,
                                      " FROM console_sessions s WHERE s.id_hash = $1 AND "
                                      "s.expires_at > now()");
constexpr pg::Statement kFind{"console_sessions_find", kFindSql.c_str()};

constexpr auto kFindWithMembershipSql = sql::concat(
    "SELECT ", kSessionColumns, ", ", kMembershipColumns,
    " FROM console_sessions s LEFT JOIN organization_members m ON m.subject = s.subject AND "
    "m.org_id = $2 LEFT JOIN organizations o ON o.id = m.org_id WHERE s.id_hash = $1 AND "
    "s.expires_at > now()");
constexpr pg::Statement kFindWithMembership{"console_sessions_find_with_membership",
                                            kFindWithMembershipSql.c_str()};

constexpr pg::Statement kRemove{"console_sessions_remove",
                                "DELETE FROM console_sessions WHERE id_hash = $1"};

constexpr auto kMembershipsSql = sql::concat(
    "SELECT ", kMembershipColumns,
    " FROM organization_members m JOIN organizations o ON o.id = m.org_id WHERE m.subject = $1 "
    "ORDER BY m.created_at, o.id LIMIT $2");
constexpr pg::Statement kMemberships{"console_sessions_memberships", kMembershipsSql.c_str()};

constexpr pg::Statement kInsertSignIn{"console_sign_ins_insert", R"sql(
INSERT INTO console_sign_ins (state_hash, browser_hash, nonce, code_verifier, redirect_uri,
                              expires_at)
VALUES ($1, $2, $3, $4, $5, now() + make_interval(secs => $6)))sql"};

constexpr auto kSignInColumns =
    sql::concat("browser_hash, nonce, code_verifier, redirect_uri, expires_at > now() AS live");
constexpr auto kTakeSignInSql = sql::concat(
    "DELETE FROM console_sign_ins WHERE state_hash = $1 RETURNING ", kSignInColumns);
constexpr pg::Statement kTakeSignIn{"console_sign_ins_take", kTakeSignInSql.c_str()};

SessionRow read_session(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kSessionColumns, name);
  };
  return SessionRow{row[at("subject")].as<std::string>(), row[at("email")].as<std::string>(),
                    row[at("csrf_token")].as<std::string>(), row[at("sign_in")].as<std::string>(),
                    row[at("expires_at")].as<std::string>()};
}

// The membership columns, from `first` on (sql::column_count of what comes before them).
Membership read_membership(const pqxx::row& row, int first) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kMembershipColumns, name);
  };
  const auto status = model::parse_organization_status(row[first + at("status")].as<std::string>());
  const auto kyb_status = model::parse_kyb_status(row[first + at("kyb_status")].as<std::string>());
  model::invariant(status && kyb_status,
                   "the tables' CHECK constraints admit exactly the standings' names");
  return Membership{row[first + at("org_id")].as<std::string>(),
                    row[first + at("display_name")].as<std::string>(),
                    row[first + at("role")].as<std::string>(), *status, *kyb_status};
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
        constexpr int membership = sql::column_count(kSessionColumns);
        if (!rows[0][membership + sql::column(kMembershipColumns, "org_id")].is_null()) {
          found.membership = read_membership(rows[0], membership);
        }
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
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kSignInColumns, name);
    };
    const auto rows = pg::exec(tx, kTakeSignIn, state_hash);
    if (rows.empty() || !rows[0][at("live")].as<bool>()) return std::optional<SignInRow>();
    const auto& row = rows[0];
    return std::optional<SignInRow>(SignInRow{
        row[at("browser_hash")].as<std::string>(), row[at("nonce")].as<std::string>(),
        row[at("code_verifier")].as<std::string>(), row[at("redirect_uri")].as<std::string>()});
  });
}

}  // namespace payrail::infra::store::console_sessions
