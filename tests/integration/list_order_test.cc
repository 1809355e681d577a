// Keyset lists follow their rows' timestamps, not the text the API shows of them: two items
// created within one second come newest first, and a walk of one-item pages finds both, whatever
// their ids. (A select list names its timestamp text created_at, and an ORDER BY of that bare name
// would sort the text, to the second, then the ids, apart from the keyset conditions that find the
// next page: infra/store/sql/listing.h, keyset_order.)
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include "infra/store/sql/listing.h"
#include "infra/store/webhooks/events.h"
#include "infra/store/webhooks/webhook_deliveries.h"
#include "tests/support/database_suite.h"

namespace payrail::testing {
namespace {

namespace events = infra::store::events;
namespace deliveries = infra::store::webhook_deliveries;
using infra::store::ListQuery;

// Ids that order two rows the other way around from their timestamps: `older` sorts after
// `newer`, and is created 0.8 s before it, in the same second.
constexpr const char* kOlderTime = "2026-01-01T00:00:00.1Z";
constexpr const char* kNewerTime = "2026-01-01T00:00:00.9Z";

class ListOrder : public DatabaseSuite<2> {
 protected:
  static void SetUpTestSuite() {
    DatabaseSuite::SetUpTestSuite();
    database_->add_organization("org_order");
    database_->scalar(
        "INSERT INTO webhook_endpoints (id, org_id, mode, url, events, secret_ciphertext) VALUES "
        "('whe_order', 'org_order', 'test', 'https://hooks.example.com/order', "
        "'{payout.created}', decode(repeat('ab', 40), 'hex')) RETURNING 1");
  }

  static void add_event(const std::string& id, const std::string& type,
                        const std::string& created_at) {
    database_->scalar(
        "INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, "
        "payload, created_at) VALUES ('" +
        id + "', 'org_order', 'test', '" + type + "', 'payout', 'po_" + id + "', 1, '{}', '" +
        created_at + "') RETURNING 1");
  }

  // Its event is of another type than the events the events' test lists.
  static void add_delivery(const std::string& id, const std::string& created_at) {
    add_event("evt_of_" + id, "payout.completed", created_at);
    database_->scalar(
        "INSERT INTO webhook_deliveries (id, org_id, mode, endpoint_id, event_id, event_type, "
        "next_attempt_at, created_at) VALUES ('" +
        id + "', 'org_order', 'test', 'whe_order', 'evt_of_" + id + "', 'payout.completed', '" +
        created_at + "', '" + created_at + "') RETURNING 1");
  }

  // The ids of every page of `limit` items, first to last.
  template <class Item>
  static std::vector<std::string> walk(
      const std::function<model::Result<infra::store::Page<Item>>(const ListQuery&)>& list,
      int limit) {
    std::vector<std::string> ids;
    ListQuery query;
    query.limit = limit;
    for (int pages = 0; pages < 10; ++pages) {
      const auto page = list(query);
      EXPECT_TRUE(page.ok());
      if (!page.ok()) return ids;
      for (const auto& item : page->items) ids.push_back(item.id);
      if (!page->has_more) return ids;
      query.starting_after = ids.back();
    }
    ADD_FAILURE() << "pagination did not end";
    return ids;
  }
};

TEST_F(ListOrder, EventsOfOneSecondAreListedNewestFirstOnEveryPage) {
  add_event("evt_order_b", "payout.created", kOlderTime);
  add_event("evt_order_a", "payout.created", kNewerTime);
  const std::function list = [](const ListQuery& query) {
    return events::list(*pool_, "org_order", model::Mode::test, std::string("payout.created"),
                        query);
  };
  const std::vector<std::string> newest_first{"evt_order_a", "evt_order_b"};
  EXPECT_EQ(walk(list, 100), newest_first);
  EXPECT_EQ(walk(list, 1), newest_first);
}

TEST_F(ListOrder, DeliveriesOfOneSecondAreListedNewestFirstOnEveryPage) {
  add_delivery("whd_order_b", kOlderTime);
  add_delivery("whd_order_a", kNewerTime);
  const std::function list = [](const ListQuery& query) {
    return deliveries::list_for_endpoint(*pool_, "org_order", model::Mode::test, "whe_order",
                                         query);
  };
  const std::vector<std::string> newest_first{"whd_order_a", "whd_order_b"};
  EXPECT_EQ(walk(list, 100), newest_first);
  EXPECT_EQ(walk(list, 1), newest_first);
}

}  // namespace
}  // namespace payrail::testing
