#include "infra/store/outbox/retention.h"

namespace payrail::infra::store::outbox {
namespace {

constexpr pg::Statement kPurge{
    "outbox_purge_consumed",
    "DELETE FROM outbox WHERE id IN (SELECT id FROM outbox WHERE consumed_at IS NOT NULL AND "
    "consumed_at < now() - make_interval(days => $1) ORDER BY consumed_at LIMIT $2)"};

}  // namespace

model::Result<long> purge_consumed(pg::Pool& pool, int batch_max) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<long> {
    return static_cast<long>(
        pg::exec(tx, kPurge, kConsumedRetentionDays, batch_max).affected_rows());
  });
}

}  // namespace payrail::infra::store::outbox
