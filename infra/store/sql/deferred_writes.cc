#include "infra/store/sql/deferred_writes.h"

#include <algorithm>
#include <iterator>
#include <stdexcept>

namespace payrail::infra::store {
namespace {

struct DeferredWrite {
  const pg::Statement* statement;
  LockOrder order;
  ReturnedRowHandler on_returned;
  std::vector<DeferredRow> rows;
};

void write(pqxx::work& tx, const DeferredWrite& deferred) {
  if (deferred.rows.empty()) return;
  const auto returned = pg::exec_rows(tx, *deferred.statement, deferred.rows);
  if (deferred.on_returned) {
    for (const auto& row : returned) deferred.on_returned(row);
    return;
  }
  if (!returned.empty()) {
    throw std::logic_error(std::string("deferred write found no row to change: ") +
                           deferred.statement->name);
  }
}

// The deferred writes of one frame (a transaction attempt or a savepoint), and whether it is the
// first pass of a group.
class DeferredWrites : public pg::TransactionLocal {
 public:
  DeferredWrite& write_for(const pg::Statement& statement, LockOrder order,
                           ReturnedRowHandler on_returned) {
    for (auto& write : writes_) {
      if (write.statement == &statement) return write;
    }
    return writes_.emplace_back(DeferredWrite{&statement, order, on_returned, {}});
  }

  void flush(pqxx::work& tx) {
    auto writes = std::move(writes_);
    writes_.clear();
    std::stable_sort(writes.begin(), writes.end(),
                     [](const auto& a, const auto& b) { return a.order < b.order; });
    for (const auto& deferred : writes) write(tx, deferred);
  }

  void flush(pqxx::work& tx, const pg::Statement& statement) {
    const auto found = std::find_if(writes_.begin(), writes_.end(),
                                    [&](const auto& write) { return write.statement == &statement; });
    if (found == writes_.end()) return;
    const auto deferred = std::move(*found);
    writes_.erase(found);
    write(tx, deferred);
  }

  bool any(const pg::Statement& statement,
           const std::function<bool(const DeferredRow&)>& match) const {
    return std::any_of(writes_.begin(), writes_.end(), [&](const DeferredWrite& write) {
      return write.statement == &statement && std::any_of(write.rows.begin(), write.rows.end(), match);
    });
  }

  void before_commit(pqxx::work& tx) override { flush(tx); }

  void keep_into(pg::TransactionLocal& parent) override {
    auto& into = static_cast<DeferredWrites&>(parent);
    for (auto& deferred : writes_) {
      auto& rows = into.write_for(*deferred.statement, deferred.order, deferred.on_returned).rows;
      std::move(deferred.rows.begin(), deferred.rows.end(), std::back_inserter(rows));
    }
  }

  bool grouped = false;  // mark_grouped; never handed on to a parent

 private:
  std::vector<DeferredWrite> writes_;
};

}  // namespace

void defer_row(pqxx::work& tx, const pg::Statement& statement, LockOrder order, DeferredRow row,
               ReturnedRowHandler on_returned) {
  if (auto* writes = pg::transaction_local<DeferredWrites>(tx)) {
    writes->write_for(statement, order, on_returned).rows.push_back(std::move(row));
    return;
  }
  write(tx, DeferredWrite{&statement, order, on_returned, {std::move(row)}});
}

void flush_deferred(pqxx::work& tx) {
  if (auto* writes = pg::transaction_local<DeferredWrites>(tx)) writes->flush(tx);
}

void flush_deferred(pqxx::work& tx, const pg::Statement& statement) {
  if (auto* writes = pg::transaction_local<DeferredWrites>(tx)) writes->flush(tx, statement);
}

model::Status flush_guarded(pqxx::work& tx) {
  return pg::guarded([&] {
    flush_deferred(tx);
    return model::ok_status();
  });
}

bool any_deferred(const pqxx::work& tx, const pg::Statement& statement,
                  const std::function<bool(const DeferredRow&)>& match) {
  bool found = false;
  pg::search_transaction_locals<DeferredWrites>(tx, [&](const DeferredWrites& writes) {
    found = writes.any(statement, match);
    return found;
  });
  return found;
}

void flush_deferred_early(pqxx::work& tx) {
  if (grouped(tx)) return;
  flush_deferred(tx);
}

void mark_grouped(pqxx::work& tx) {
  if (auto* writes = pg::transaction_local<DeferredWrites>(tx)) writes->grouped = true;
}

bool grouped(const pqxx::work& tx) {
  const auto* writes = pg::transaction_local<DeferredWrites>(tx);
  return writes != nullptr && writes->grouped;
}

}  // namespace payrail::infra::store
