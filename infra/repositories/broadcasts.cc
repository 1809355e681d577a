#include "infra/repositories/broadcasts.h"

#include "infra/pg/pool.h"
#include "infra/repositories/sql.h"

namespace payrail::infra::repositories::broadcasts {
namespace {

constexpr pg::Statement kBegin{
    "broadcasts_begin",
    "INSERT INTO payout_broadcasts (payout_id, reference) VALUES ($1, $1) "
    "ON CONFLICT (payout_id) DO NOTHING"};
constexpr pg::Statement kFind{"broadcasts_find",
                              "SELECT reference, outcome, tx_hash, failure_reason FROM "
                              "payout_broadcasts WHERE payout_id = $1"};
constexpr pg::Statement kFinish{
    "broadcasts_finish",
    "UPDATE payout_broadcasts SET outcome = $2, tx_hash = $3, failure_reason = $4, "
    "finished_at = now() WHERE payout_id = $1 AND outcome IS NULL"};
constexpr pg::Statement kRemaining{
    "broadcasts_remaining_delay",
    "SELECT greatest(0, ceil(extract(epoch FROM (finished_at + $2 * interval '1 millisecond' - "
    "clock_timestamp())) * 1000))::bigint FROM payout_broadcasts WHERE payout_id = $1"};

}  // namespace

Broadcast begin(pqxx::work& tx, const std::string& payout_id) {
  pg::exec(tx, kBegin, payout_id);
  return *find(tx, payout_id);
}

void finish(pqxx::work& tx, const std::string& payout_id, bool accepted, const std::string& tx_hash,
            const std::string& failure_reason) {
  pg::exec(tx, kFinish, payout_id, std::string(accepted ? "broadcast" : "rejected"),
           accepted ? std::optional<std::string>(tx_hash) : std::nullopt,
           accepted ? std::nullopt : std::optional<std::string>(failure_reason));
}

std::optional<Broadcast> find(pqxx::work& tx, const std::string& payout_id) {
  const auto rows = pg::exec(tx, kFind, payout_id);
  if (rows.empty()) return std::nullopt;
  return Broadcast{rows[0][0].as<std::string>(), optional_text(rows[0][1]),
                   optional_text(rows[0][2]), optional_text(rows[0][3])};
}

long remaining_delay_ms(pqxx::work& tx, const std::string& payout_id, long delay_ms) {
  const auto rows = pg::exec(tx, kRemaining, payout_id, delay_ms);
  if (rows.empty() || rows[0][0].is_null()) return 0;
  return rows[0][0].as<long>();
}

}  // namespace payrail::infra::repositories::broadcasts
