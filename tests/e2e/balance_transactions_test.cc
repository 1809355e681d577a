// GET /v1/balance-transactions on the whole stack: every movement of a completed payout, a failed
// payout's refund, a rejected approval's release and a settled collection appears exactly once,
// the signed changes summed per asset equal the balances and each movement's balances-after are
// the running balances; pagination, filters, bad inputs with their exact param, scope, and
// isolation by organization and mode.
#include <gtest/gtest.h>

#include <map>
#include <set>
#include <tuple>
#include <vector>

#include "tests/support/collections.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"
#include "tests/support/tokens.h"

namespace payrail::testing {
namespace {

struct Movement {
  std::string id;
  std::string type;
  std::string asset;
  std::string amount;
  std::string available_change;
  std::string held_change;
  std::string available_after;
  std::string held_after;
  std::string resource_object;
  std::string resource_id;
};

class BalanceTransactions : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack();
    organization_ = new TestOrganization(stack_->create_organization());
  }
  static void TearDownTestSuite() {
    delete organization_;
    delete stack_;
  }
  static const HttpClient& http() { return stack_->http(); }
  static const std::string& key() { return organization_->test_key; }

  static HttpResult list(const std::string& query, const std::string& api_key = key()) {
    return http().get("/v1/balance-transactions" + query, with_key(api_key));
  }

  // Every movement, page by page (3 per page, so the cursor is exercised).
  static std::vector<Movement> all_movements(const std::string& api_key = key()) {
    std::vector<Movement> movements;
    std::string cursor;
    for (int page = 0; page < 100; ++page) {
      const auto response =
          list("?limit=3" + (cursor.empty() ? "" : "&starting_after=" + cursor), api_key);
      EXPECT_EQ(response.status, 200) << response.body;
      auto json = response.json();
      for (const auto& item : json["data"].GetArray()) {
        Movement movement{item["id"].GetString(),
                          item["type"].GetString(),
                          item["asset"].GetString(),
                          item["amount"].GetString(),
                          item["available_change"].GetString(),
                          item["held_change"].GetString(),
                          item["available_after"].GetString(),
                          item["held_after"].GetString()};
        EXPECT_STREQ(item["object"].GetString(), "balance_transaction");
        EXPECT_STREQ(item["mode"].GetString(), "test");
        if (item["resource"].IsObject()) {
          movement.resource_object = item["resource"]["object"].GetString();
          movement.resource_id = item["resource"]["id"].GetString();
        }
        movements.push_back(movement);
      }
      if (!json["has_more"].GetBool()) break;
      cursor = json["next_cursor"].GetString();
    }
    return movements;
  }

  static std::string payout(const std::string& amount, const std::string& address) {
    static int counter = 0;
    const auto response = create_payout(http(), key(), "btx-" + std::to_string(counter++),
                                        payout_body(amount, "USDC", "polygon", address));
    EXPECT_TRUE(response.status == 201 || response.status == 202) << response.body;
    return response.json()["id"].GetString();
  }

  static TestStack* stack_;
  static TestOrganization* organization_;
};
TestStack* BalanceTransactions::stack_ = nullptr;
TestOrganization* BalanceTransactions::organization_ = nullptr;

// Signed changes summed: the positives equal the balance plus the negatives' magnitudes (the
// support's decimal helpers add non-negative amounts only).
::testing::AssertionResult adds_up_to(const std::vector<std::string>& changes,
                                      const std::string& balance) {
  std::string positive = "0";
  std::string negative = "0";
  for (const auto& change : changes) {
    if (change.starts_with('-')) {
      negative = add_amounts(negative, change.substr(1));
    } else {
      positive = add_amounts(positive, change);
    }
  }
  const auto expected = normalized_decimal(add_amounts(balance, negative));
  if (normalized_decimal(positive) == expected) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "credits " << positive << " != balance " << balance << " + debits " << negative;
}

TEST_F(BalanceTransactions, EveryMovementAppearsOnceAndTheyAddUpToTheBalances) {
  const auto completed = payout("10", random_evm_address());
  const auto failed = payout("7", fail_trigger_address());
  const auto rejected = payout("15000", random_evm_address());
  ASSERT_EQ(wait_for_status(http(), key(), completed, {"completed"}), "completed");
  ASSERT_EQ(wait_for_status(http(), key(), failed, {"failed"}), "failed");
  ASSERT_EQ(wait_for_status(http(), key(), rejected, {"pending_approval"}), "pending_approval");
  const auto decided =
      http().post("/v1/payouts/" + rejected + "/reject", "", with_session(organization_->session));
  ASSERT_EQ(decided.status, 200) << decided.body;
  const auto created =
      create_collection(http(), key(), "btx-collection", collection_body("100.00", "CAD", "eft"));
  ASSERT_EQ(created.status, 201) << created.body;
  const std::string collection = created.json()["id"].GetString();
  ASSERT_EQ(collection_helper(http(), key(), collection, "receive").status, 202);
  ASSERT_EQ(wait_for_collection(http(), key(), collection, {"settled"}), "settled");

  const auto movements = all_movements();
  std::map<std::string, std::multiset<std::string>> by_resource;
  std::set<std::string> ids;
  for (const auto& movement : movements) {
    EXPECT_TRUE(ids.insert(movement.id).second) << movement.id << " listed twice";
    by_resource[movement.resource_id].insert(movement.type);
  }
  EXPECT_EQ(by_resource[completed], (std::multiset<std::string>{"hold", "settle"}));
  EXPECT_EQ(by_resource[failed], (std::multiset<std::string>{"hold", "refund"}));
  EXPECT_EQ(by_resource[rejected], (std::multiset<std::string>{"hold", "release"}));
  EXPECT_EQ(by_resource[collection], (std::multiset<std::string>{"credit"}));
  EXPECT_EQ(by_resource[""],
            (std::multiset<std::string>{"sandbox_funding", "sandbox_funding", "sandbox_funding"}));
  for (const auto& movement : movements) {
    if (movement.resource_id == completed) EXPECT_EQ(movement.resource_object, "payout");
    if (movement.resource_id == collection) EXPECT_EQ(movement.resource_object, "collection");
  }

  // Summed per asset, the signed changes are the balances; the newest movement of each asset
  // shows them as its balances-after, and each older one shows them less the changes after it.
  const auto balances = http().get("/v1/balances", with_key(key())).json();
  for (const auto& balance : balances["data"].GetArray()) {
    const std::string asset = balance["asset"].GetString();
    std::vector<std::string> available;
    std::vector<std::string> held;
    const Movement* newest = nullptr;
    for (const auto& movement : movements) {
      if (movement.asset != asset) continue;
      if (newest == nullptr) newest = &movement;
      available.push_back(movement.available_change);
      held.push_back(movement.held_change);
    }
    ASSERT_NE(newest, nullptr) << asset;
    EXPECT_EQ(normalized_decimal(newest->available_after),
              normalized_decimal(balance["available"].GetString()));
    EXPECT_EQ(normalized_decimal(newest->held_after),
              normalized_decimal(balance["held"].GetString()));
    EXPECT_TRUE(adds_up_to(available, balance["available"].GetString())) << asset;
    // Consecutive movements of the asset: the older one's balance after it, changed by the newer
    // one, is the newer one's.
    const Movement* newer = nullptr;
    for (const auto& movement : movements) {
      if (movement.asset != asset) continue;
      if (newer != nullptr) {
        for (const auto& [change, older_after, newer_after] :
             {std::tuple{newer->available_change, movement.available_after, newer->available_after},
              std::tuple{newer->held_change, movement.held_after, newer->held_after}}) {
          if (change.starts_with('-')) {
            EXPECT_EQ(normalized_decimal(add_amounts(newer_after, change.substr(1))),
                      normalized_decimal(older_after))
                << newer->id;
          } else {
            EXPECT_EQ(normalized_decimal(add_amounts(older_after, change)),
                      normalized_decimal(newer_after))
                << newer->id;
          }
        }
      }
      newer = &movement;
    }
    EXPECT_TRUE(adds_up_to(held, balance["held"].GetString())) << asset;
  }
  EXPECT_EQ(ledger_mismatch(stack_->database()), "");

  // The hold of a payout moves available to held; its settle takes it out of held.
  for (const auto& movement : movements) {
    if (movement.resource_id != completed) continue;
    EXPECT_EQ(normalized_decimal(movement.amount), "10");
    if (movement.type == "hold") {
      EXPECT_EQ(normalized_decimal(movement.available_change), "-10");
      EXPECT_EQ(normalized_decimal(movement.held_change), "10");
    } else {
      EXPECT_EQ(normalized_decimal(movement.available_change), "0");
      EXPECT_EQ(normalized_decimal(movement.held_change), "-10");
    }
  }
}

TEST_F(BalanceTransactions, FiltersNarrowTheList) {
  const auto holds = list("?type=hold&limit=100").json();
  for (const auto& item : holds["data"].GetArray()) EXPECT_STREQ(item["type"].GetString(), "hold");
  const auto tether = list("?asset=USDT").json();
  ASSERT_EQ(tether["data"].Size(), 1u);
  EXPECT_STREQ(tether["data"][0]["type"].GetString(), "sandbox_funding");
  EXPECT_TRUE(tether["data"][0]["resource"].IsNull());
  EXPECT_EQ(normalized_decimal(tether["data"][0]["available_after"].GetString()), "1000000");
  const auto future = list("?created_gte=2999-01-01T00:00:00Z").json();
  EXPECT_EQ(future["data"].Size(), 0u);
  const auto past = list("?created_lte=2000-01-01T00:00:00Z").json();
  EXPECT_EQ(past["data"].Size(), 0u);
}

TEST_F(BalanceTransactions, BadInputsNameTheirParameter) {
  const auto other = stack_->create_organization();
  const auto foreign_id =
      std::string(list("?limit=1", other.test_key).json()["data"][0]["id"].GetString());
  const std::vector<std::pair<std::string, std::string>> cases{
      {"?limit=0", "limit"},
      {"?limit=101", "limit"},
      {"?limit=abc", "limit"},
      {"?starting_after=btx_abc", "starting_after"},
      {"?starting_after=btx_0", "starting_after"},
      {"?starting_after=po_123", "starting_after"},
      {"?starting_after=btx_99999999999999999999", "starting_after"},
      {"?starting_after=" + foreign_id, "starting_after"},
      {"?asset=BTC", "asset"},
      {"?asset=usdc", "asset"},
      {"?type=debit", "type"},
      {"?created_gte=yesterday", "created_gte"},
      {"?created_lte=2026-13-01T00:00:00Z", "created_lte"},
      {"?status=completed", "status"},
      {"?asset=USDC&asset=ETH", "asset"},
  };
  for (const auto& [query, param] : cases) {
    EXPECT_TRUE(is_error(list(query), 400, "bad_request", param)) << query;
  }
}

TEST_F(BalanceTransactions, NeedsBalancesReadAndIsIsolatedByOrganizationAndMode) {
  const auto narrow =
      http().post("/v1/api-keys", R"({"mode":"test","scopes":["payouts:read"]})", with_key(key()));
  ASSERT_EQ(narrow.status, 201) << narrow.body;
  EXPECT_TRUE(is_error(list("", narrow.json()["key"].GetString()), 403, "scope_insufficient"));
  EXPECT_TRUE(is_error(http().get("/v1/balance-transactions"), 401, "api_key_missing"));

  // Another organization sees its own sandbox funding only.
  const auto other = stack_->create_organization();
  const auto others = list("?limit=100", other.test_key).json();
  EXPECT_EQ(others["data"].Size(), 3u);
  std::set<std::string> mine;
  for (const auto& movement : all_movements()) mine.insert(movement.id);
  for (const auto& item : others["data"].GetArray()) {
    EXPECT_EQ(mine.count(item["id"].GetString()), 0u);
    EXPECT_STREQ(item["type"].GetString(), "sandbox_funding");
  }
  // Live mode of the same organization has moved nothing.
  stack_->verify_business(*organization_);
  const auto live_key = http().post("/v1/api-keys", R"({"mode":"live"})",
                                    {{"Authorization", "Bearer " + organization_->session},
                                     {"Payrail-Organization", organization_->id}});
  ASSERT_EQ(live_key.status, 201) << live_key.body;
  const auto live = list("", live_key.json()["key"].GetString());
  ASSERT_TRUE(has_status(live, 200)) << live.body;
  EXPECT_EQ(live.json()["data"].Size(), 0u);
  EXPECT_FALSE(live.json()["has_more"].GetBool());
  // A test-mode cursor names no item of the live list.
  EXPECT_TRUE(is_error(http().get("/v1/balance-transactions?starting_after=" + *mine.begin(),
                                  with_key(live_key.json()["key"].GetString())),
                       400, "bad_request", "starting_after"));
}

}  // namespace
}  // namespace payrail::testing
