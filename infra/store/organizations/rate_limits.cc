#include "infra/store/organizations/rate_limits.h"

#include "infra/store/sql/text.h"

namespace payrail::infra::store::rate_limits {
namespace {

// $1 key, $2 wanted, $3 per second, $4 burst. EXCLUDED.refilled_at is this statement's clock,
// read once; kRefilled is the bucket after refilling, kTaken the whole tokens granted.
constexpr sql::Text kRefilled =
    "least($4::float8, b.tokens + $3::float8 * greatest(0, extract(epoch FROM "
    "EXCLUDED.refilled_at - b.refilled_at)::float8))";
constexpr auto kTaken = sql::concat("least($2::int, floor(", kRefilled, ")::int)");

// The columns lease() maps, by name (sql::column).
constexpr sql::Text kLeaseColumns = "granted, tokens";
constexpr auto kLeaseSql = sql::concat(
    "INSERT INTO rate_limit_buckets AS b (bucket_key, tokens, granted, refilled_at) SELECT $1, "
    "$4::float8 - least($2::int, floor($4::float8)::int), least($2::int, floor($4::float8)::int), "
    "clock_timestamp() WHERE set_config('synchronous_commit', 'off', true) = 'off' ON CONFLICT "
    "(bucket_key) DO UPDATE SET granted = ",
    kTaken, ", tokens = ", kRefilled, " - ", kTaken,
    ", refilled_at = EXCLUDED.refilled_at RETURNING ", kLeaseColumns);
constexpr pg::Statement kLease{"rate_limit_lease", kLeaseSql.c_str()};

constexpr pg::Statement kPurgeIdle{"rate_limit_purge_idle", R"sql(
DELETE FROM rate_limit_buckets WHERE bucket_key IN (
  SELECT bucket_key FROM rate_limit_buckets
  WHERE refilled_at < now() - $1::int * interval '1 second' LIMIT $2))sql"};

}  // namespace

// A lease does not wait for its WAL flush (about 0.5-0.9 ms on this machine, on the path of every
// request that leases). The bucket is not money: if the PostgreSQL server itself crashes, the
// leases of its last moments (at most 3 x wal_writer_delay, 0.6 s) may be lost and their tokens
// granted once more (docs/design.md, "Rate limits"). A crash of an API process loses nothing.
// One statement in its own implicit transaction: kLease sets synchronous_commit for that
// transaction alone (set_config's is_local), which its commit reads, so no BEGIN, SET LOCAL and
// COMMIT round trips. Run again after a lost connection, a lease may take its tokens twice:
// fewer requests pass, never more.
model::Result<Lease> lease(pg::Pool& pool, std::string_view bucket_key, int wanted,
                           double per_second, double burst) {
  return pool.autocommit([&](pqxx::nontransaction& tx) -> model::Result<Lease> {
    const auto row = pg::exec(tx, kLease, std::string(bucket_key), wanted, per_second, burst)[0];
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kLeaseColumns, name);
    };
    return Lease{row[at("granted")].as<int>(), row[at("tokens")].as<double>()};
  });
}

model::Result<long> purge_idle(pg::Pool& pool, int idle_seconds, int batch_max) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return static_cast<long>(pg::exec(tx, kPurgeIdle, idle_seconds, batch_max).affected_rows());
  });
}

}  // namespace payrail::infra::store::rate_limits
