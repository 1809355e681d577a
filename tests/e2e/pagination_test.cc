// The one list mechanism (list envelope, limit, starting_after, newest first, stable under
// inserts, filters and unknown parameters), exercised through GET /v1/api-keys and
// GET /v1/payouts.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "tests/support/api_suite.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

constexpr int kExtraKeys = 26;  // 27 keys in all: more than the default page of 25

struct ListPage {
  std::vector<std::string> ids;
  std::vector<std::string> created_at;
  bool has_more = false;
  std::optional<std::string> next_cursor;
};

class Pagination : public ApiSuite<Pagination> {
 protected:
  static void SetUpTestSuite() {
    ApiSuite::SetUpTestSuite();
    for (int i = 0; i < kExtraKeys; ++i) create_key(organization_->test_key);
  }

  static std::string create_key(const std::string& api_key) {
    const auto response =
        stack_->http().post("/v1/api-keys", R"({"mode":"test"})", with_key(api_key));
    if (response.status != 201) throw std::runtime_error("create key: " + response.body);
    return response.json()["id"].GetString();
  }

  static ListPage list(const std::string& api_key, const std::string& query) {
    const auto response = stack_->http().get("/v1/api-keys" + query, with_key(api_key));
    EXPECT_TRUE(has_status(response, 200));
    return read_page(response);
  }

  static ListPage read_page(const HttpResult& response) {
    ListPage page;
    const auto json = response.json();
    EXPECT_STREQ(json["object"].GetString(), "list");
    for (const auto& item : json["data"].GetArray()) {
      page.ids.push_back(item["id"].GetString());
      page.created_at.push_back(item["created_at"].GetString());
    }
    page.has_more = json["has_more"].GetBool();
    if (json["next_cursor"].IsString()) page.next_cursor = json["next_cursor"].GetString();
    EXPECT_TRUE(json["next_cursor"].IsString() || json["next_cursor"].IsNull());
    return page;
  }

  // Follows next_cursor from the first page to the last; checks each page's envelope.
  static std::vector<std::string> walk(const std::string& api_key, int limit) {
    std::vector<std::string> ids;
    std::string query = "?limit=" + std::to_string(limit);
    for (int pages = 0; pages < 200; ++pages) {
      const auto page = list(api_key, query);
      EXPECT_LE(static_cast<int>(page.ids.size()), limit);
      ids.insert(ids.end(), page.ids.begin(), page.ids.end());
      if (!page.has_more) {
        EXPECT_FALSE(page.next_cursor.has_value());
        return ids;
      }
      EXPECT_EQ(static_cast<int>(page.ids.size()), limit);
      EXPECT_EQ(page.next_cursor, page.ids.back());
      query = "?limit=" + std::to_string(limit) + "&starting_after=" + *page.next_cursor;
    }
    ADD_FAILURE() << "pagination did not end";
    return ids;
  }

  static void expect_limit_error(const std::string& value) {
    EXPECT_TRUE(is_error(
        stack_->http().get("/v1/api-keys?limit=" + value, with_key(organization_->test_key)), 400,
        "bad_request", "limit"))
        << "limit=" << value;
  }
};

TEST_F(Pagination, LimitOutsideOneToHundredOrNotAPlainIntegerIsRejected) {
  for (const std::string value :
       {"0", "101", "abc", "-1", "05", "", "1.5", "%2B5", "1e1", "99999999999", "%205"}) {
    expect_limit_error(value);
  }
  EXPECT_TRUE(is_error(stack_->http().get("/v1/api-keys?limit", with_key(organization_->test_key)),
                       400, "bad_request", "limit"));
}

TEST_F(Pagination, LimitBoundsAreAccepted) {
  const auto one = list(organization_->test_key, "?limit=1");
  EXPECT_EQ(one.ids.size(), 1u);
  EXPECT_TRUE(one.has_more);
  const auto hundred = list(organization_->test_key, "?limit=100");
  EXPECT_GE(hundred.ids.size(), static_cast<std::size_t>(kExtraKeys + 1));
  EXPECT_FALSE(hundred.has_more);
  EXPECT_FALSE(hundred.next_cursor.has_value());
}

TEST_F(Pagination, DefaultPageIs25) {
  const auto page = list(organization_->test_key, "");
  EXPECT_EQ(page.ids.size(), 25u);
  EXPECT_TRUE(page.has_more);
  EXPECT_EQ(page.next_cursor, page.ids.back());
}

TEST_F(Pagination, NewestFirst) {
  const auto page = list(organization_->test_key, "?limit=100");
  for (std::size_t i = 1; i < page.created_at.size(); ++i) {
    EXPECT_GE(page.created_at[i - 1], page.created_at[i]) << "item " << i;
  }
  // The organization's first key was created before all the others.
  const auto first_key =
      stack_->database().scalar("SELECT id FROM api_keys WHERE org_id = '" + organization_->id +
                                "' ORDER BY created_at, id LIMIT 1");
  EXPECT_EQ(page.ids.back(), first_key);
}

TEST_F(Pagination, PagesWalkToTheEndWithoutDuplicatesOrGaps) {
  const auto all = list(organization_->test_key, "?limit=100").ids;
  for (const int limit : {1, 4, 25}) {
    const auto walked = walk(organization_->test_key, limit);
    EXPECT_EQ(walked, all) << "limit " << limit;
    EXPECT_EQ(std::set<std::string>(walked.begin(), walked.end()).size(), walked.size());
  }
}

TEST_F(Pagination, EqualTimestampsAreOrderedByIdAndPageCleanly) {
  auto tied = stack_->create_organization();
  for (int i = 0; i < 6; ++i) create_key(tied.test_key);
  // Same created_at for every key: only the id can order them.
  stack_->database().scalar(
      "UPDATE api_keys SET created_at = '2026-01-01T00:00:00Z' WHERE org_id = '" + tied.id + "'");
  const auto expected = stack_->database().scalar(
      "SELECT string_agg(id, ',' ORDER BY id DESC) FROM api_keys WHERE org_id = '" + tied.id + "'");
  const auto walked = walk(tied.test_key, 2);
  std::string joined;
  for (const auto& id : walked) joined += (joined.empty() ? "" : ",") + id;
  EXPECT_EQ(joined, expected);
  EXPECT_EQ(walked.size(), 7u);
}

// Items are ordered by their exact creation time, not by the timestamp shown (to the second):
// otherwise the page order and the cursor's (created_at, id) disagree, and a walk skips items.
TEST_F(Pagination, ItemsOfOneSecondAreOrderedByTheirExactTime) {
  auto same_second = stack_->create_organization();
  for (int i = 0; i < 3; ++i) create_key(same_second.test_key);
  // Within one second, the smallest id the newest: the reverse of the ids' order.
  stack_->database().scalar(
      "UPDATE api_keys k SET created_at = '2026-01-01T00:00:00Z'::timestamptz + n * "
      "interval '100 milliseconds' FROM (SELECT id, row_number() OVER (ORDER BY id DESC) AS n "
      "FROM api_keys WHERE org_id = '" +
      same_second.id + "') ranked WHERE k.id = ranked.id");
  const auto expected = stack_->database().scalar(
      "SELECT string_agg(id, ',' ORDER BY created_at DESC) FROM api_keys WHERE org_id = '" +
      same_second.id + "'");
  const auto walked = walk(same_second.test_key, 1);
  std::string joined;
  for (const auto& id : walked) joined += (joined.empty() ? "" : ",") + id;
  EXPECT_EQ(joined, expected);
  EXPECT_EQ(walked.size(), 4u);
}

TEST_F(Pagination, LaterPagesDoNotShiftWhenItemsAreInserted) {
  const auto before = list(organization_->test_key, "?limit=100").ids;
  const auto first = list(organization_->test_key, "?limit=5");
  const auto inserted = create_key(organization_->test_key);
  const auto second =
      list(organization_->test_key, "?limit=5&starting_after=" + *first.next_cursor);
  EXPECT_EQ(second.ids, std::vector<std::string>(before.begin() + 5, before.begin() + 10));
  EXPECT_EQ(list(organization_->test_key, "?limit=1").ids.front(), inserted);
  const auto revoked =
      stack_->http().del("/v1/api-keys/" + inserted, with_key(organization_->test_key));
  EXPECT_TRUE(has_status(revoked, 204));
}

TEST_F(Pagination, UnknownOrMalformedCursorIsRejected) {
  const auto other = stack_->create_organization();
  const auto other_key_id =
      stack_->database().scalar("SELECT id FROM api_keys WHERE org_id = '" + other.id + "'");
  for (const std::string& cursor :
       {std::string("key_") + std::string(24, 'A'), std::string("abc"), std::string(""),
        std::string("po_") + std::string(24, 'A'), other_key_id, "key_" + std::string(200, 'x')}) {
    EXPECT_TRUE(is_error(stack_->http().get("/v1/api-keys?starting_after=" + cursor,
                                            with_key(organization_->test_key)),
                         400, "bad_request", "starting_after"))
        << cursor;
  }
}

TEST_F(Pagination, UnknownQueryParameterIsRejectedWithParam) {
  const auto key = with_key(organization_->test_key);
  EXPECT_TRUE(
      is_error(stack_->http().get("/v1/api-keys?colour=red", key), 400, "bad_request", "colour"));
  // API keys take no created range and no status filter.
  EXPECT_TRUE(is_error(stack_->http().get("/v1/api-keys?created_gte=2026-11-21T00:00:00Z", key),
                       400, "bad_request", "created_gte"));
  EXPECT_TRUE(
      is_error(stack_->http().get("/v1/payouts?colour=red", key), 400, "bad_request", "colour"));
}

TEST_F(Pagination, PercentEncodedQueryValuesAreDecoded) {
  // Common clients encode ':' in query values (Python's urlencode does).
  const auto key = with_key(organization_->test_key);
  EXPECT_TRUE(
      has_status(stack_->http().get("/v1/payouts?created_gte=2026-11-21T00%3A00%3A00Z", key), 200));
  EXPECT_EQ(list(organization_->test_key, "?limit=%32").ids.size(), 2u);
}

TEST_F(Pagination, CreatedRangeNeedsIsoUtcTimestamps) {
  const auto key = with_key(organization_->test_key);
  for (const std::string name : {"created_gte", "created_lte"}) {
    for (const std::string value :
         {"yesterday", "2026-11-21", "2026-11-21T00:00:00", "2026-13-01T00:00:00Z",
          "2026-11-21T25:00:00Z", "2026-11-21T00:00:00%2B01:00", "1795305987", ""}) {
      EXPECT_TRUE(is_error(stack_->http().get("/v1/payouts?" + name + "=" + value, key), 400,
                           "bad_request", name))
          << name << "=" << value;
    }
  }
  const auto valid = stack_->http().get(
      "/v1/payouts?created_gte=2026-01-01T00:00:00Z&created_lte=2099-01-01T00:00:00.5Z", key);
  EXPECT_TRUE(has_status(valid, 200));
  const auto page = read_page(valid);
  EXPECT_TRUE(page.ids.empty());
  EXPECT_FALSE(page.has_more);
  EXPECT_FALSE(page.next_cursor.has_value());
  EXPECT_TRUE(is_error(stack_->http().get("/v1/payouts?status=sideways", key), 400, "bad_request",
                       "status"));
}

}  // namespace
}  // namespace payrail::testing
