#include "infra/store/sql/listing.h"

namespace payrail::infra::store {
namespace {

const char* table_of(Listable listable) {
  switch (listable) {
    case Listable::api_keys:
      return "api_keys";
    case Listable::payouts:
      return "payouts";
    case Listable::fiat_payouts:
      return "fiat_payouts";
    case Listable::events:
      return "events";
    case Listable::webhook_endpoints:
      return "webhook_endpoints";
    case Listable::kyb_submissions:
      return "kyb_submissions";
    case Listable::collections:
      return "collections";
  }
  return "api_keys";
}

}  // namespace

model::Result<bool> cursor_exists(pg::Pool& pool, Listable listable, std::string_view org_id,
                                  model::Mode mode, std::string_view id) {
  const std::string sql =
      std::string("SELECT 1 FROM ") + table_of(listable) + " WHERE id = $1 AND org_id = $2";
  return pool.transact([&](pqxx::work& tx) -> model::Result<bool> {
    if (listable == Listable::kyb_submissions) {
      return !tx.exec_params(sql, std::string(id), std::string(org_id)).empty();
    }
    return !tx.exec_params(sql + " AND mode = $3", std::string(id), std::string(org_id),
                           std::string(model::mode_name(mode)))
                .empty();
  });
}

}  // namespace payrail::infra::store
