#include "infra/store/outbox/republish.h"

#include "infra/plumbing/log/log.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::outbox {
namespace {

constexpr long kBatchMax = 500;

// Keyset pagination on (created_at, id): outbox_by_topic_time. The columns read_page() reads, by
// name (`created_at::text` is named created_at whether or not it says so).
constexpr sql::Text kPageColumns = "id, message_key, payload, created_at::text AS created_at";
constexpr auto kPageSql = sql::concat("\nSELECT ", kPageColumns, R"sql( FROM outbox
WHERE topic = $1 AND created_at >= $2::timestamptz AND created_at < $3::timestamptz
  AND (created_at, id) > ($4::timestamptz, $5::bigint)
ORDER BY created_at, id LIMIT $6)sql");
constexpr pg::Statement kPage{"outbox_republish_page", kPageSql.c_str()};

struct Page {
  std::vector<kafka::ProduceItem> items;
  std::string last_created_at;
  long last_id = 0;
};

model::Result<Page> read_page(pg::Pool& pool, const RepublishRange& range, const Page& after) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page> {
    constexpr auto at = [](std::string_view name) consteval {
      return sql::column(kPageColumns, name);
    };
    Page page;
    const auto broker_topic = topics::broker_topic_name(*range.topic, range.topic_prefix);
    for (const auto& row : pg::exec(tx, kPage, std::string(range.topic->name), range.from, range.to,
                                    after.last_created_at, after.last_id, kBatchMax)) {
      page.items.push_back({broker_topic, row[at("message_key")].as<std::string>(),
                            row[at("payload")].as<std::string>()});
      page.last_id = row[at("id")].as<long>();
      page.last_created_at = row[at("created_at")].as<std::string>();
    }
    return page;
  });
}

}  // namespace

model::Result<Republished> republish(pg::Pool& pool, kafka::Producer& producer,
                                     const RepublishRange& range) {
  Republished total;
  Page position{{}, "-infinity", 0};
  while (true) {
    auto page = read_page(pool, range, position);
    if (!page.ok()) return page.error();
    if (page->items.empty()) break;
    for (const auto& delivered : producer.produce_batch(page->items)) {
      ++(delivered.acknowledged ? total.messages : total.failed);
    }
    position = std::move(*page);
    if (static_cast<long>(position.items.size()) < kBatchMax) break;
  }
  log::info("outbox.republished", {{"topic", std::string(range.topic->name)},
                                   {"messages", std::to_string(total.messages)},
                                   {"failed", std::to_string(total.failed)}});
  return total;
}

}  // namespace payrail::infra::store::outbox
