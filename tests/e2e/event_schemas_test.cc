// Every event the running service emits is valid against the OpenAPI description it serves: one
// organization drives payouts, fiat payouts and collections through every outcome (so that every
// event type of EventType occurs), then each event of GET /v1/events is validated against the
// served document's Event schema, and each page against EventList, by a real JSON Schema
// validator (Ajv, draft 2020-12: tests/tools/validate-schema.mjs, pinned in tests/tools). The
// validator is shown to refuse altered events too, so the check can fail.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <set>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/common/source_tree.h"
#include "tests/support/collections.h"
#include "tests/support/fiat_payouts.h"
#include "tests/support/payouts.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

const std::set<std::string> kPayoutFinal{"completed", "failed", "blocked", "cancelled"};
const std::set<std::string> kCollectionFinal{"settled", "failed", "expired", "cancelled"};

// A directory of its own for the files handed to the validator, removed at the end.
class ScratchDirectory {
 public:
  ScratchDirectory() {
    std::string pattern = (std::filesystem::temp_directory_path() / "payrail-events.XXXXXX");
    if (mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  ~ScratchDirectory() { std::filesystem::remove_all(path_); }
  std::string write(const std::string& name, const std::string& content) const {
    const auto file = (path_ / name).string();
    std::ofstream(file) << content;
    return file;
  }

 private:
  std::filesystem::path path_;
};

// Runs tests/tools/validate-schema.mjs; returns its exit status and output.
std::pair<int, std::string> validate(const std::string& document_file, const std::string& schema,
                                     const std::string& values_file) {
  const auto script = std::string(model::source_directory()) + "/tests/tools/validate-schema.mjs";
  const auto command =
      "node '" + script + "' '" + document_file + "' " + schema + " '" + values_file + "' 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  std::string output;
  std::array<char, 4096> buffer{};
  while (fgets(buffer.data(), buffer.size(), pipe) != nullptr) output += buffer.data();
  const int status = pclose(pipe);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, output};
}

std::string json_list(const std::vector<std::string>& items) {
  std::string text = "[";
  for (std::size_t i = 0; i < items.size(); ++i) text += (i == 0 ? "" : ",") + items[i];
  return text + "]";
}

class EventSchemas : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    stack_ = new TestStack({.env = {{"PAYRAIL_FIAT_SETTLEMENT_DELAY_MS", "100"}}});
  }
  static void TearDownTestSuite() {
    delete stack_;
    stack_ = nullptr;
  }

  const HttpClient& http() const { return stack_->http(); }
  std::string next_key() { return "events-" + std::to_string(counter_++); }

  // The id of a created payout or fiat payout: 201, 202, or 403 `screening_blocked` naming it
  // under `error.<id_member>`.
  static std::string created_id(const HttpResult& created, const char* id_member) {
    const auto json = created.json();
    if (created.status == 403 && created.error_code() == "screening_blocked") {
      return json["error"][id_member].GetString();
    }
    EXPECT_TRUE(created.status == 201 || created.status == 202) << created.body;
    return json.HasMember("id") ? json["id"].GetString() : "";
  }
  std::string payout(const std::string& amount, const std::string& address) {
    return created_id(create_payout(http(), org_.test_key, next_key(),
                                    payout_body(amount, "USDC", "polygon", address)),
                      "payout_id");
  }
  std::string fiat_payout(const std::string& amount, const std::string& name) {
    return created_id(create_fiat_payout(http(), org_.test_key, next_key(),
                                         fiat_payout_body(amount, mexico_case(), name)),
                      "fiat_payout_id");
  }
  std::string collection() {
    const auto created = create_collection(http(), org_.test_key, next_key(),
                                           collection_body("100.00", "CAD", "interac_etransfer"));
    EXPECT_EQ(created.status, 201) << created.body;
    return created.json()["id"].GetString();
  }
  void cancel(const std::string& path) {
    const auto response = http().post(path + "/cancel", "", with_key(org_.test_key));
    EXPECT_EQ(response.status, 200) << path << " " << response.body;
  }

  // Every page of GET /v1/events, as returned.
  std::vector<std::string> event_pages() {
    std::vector<std::string> pages;
    std::string query = "?limit=100";
    while (true) {
      const auto response = http().get("/v1/events" + query, with_key(org_.test_key));
      EXPECT_EQ(response.status, 200) << response.body;
      if (response.status != 200) return pages;
      pages.push_back(response.body);
      const auto page = response.json();
      if (!page["has_more"].GetBool()) return pages;
      query = "?limit=100&starting_after=" + std::string(page["next_cursor"].GetString());
    }
  }

  static TestStack* stack_;
  TestOrganization org_ = stack_->create_organization();
  int counter_ = 0;
};
TestStack* EventSchemas::stack_ = nullptr;

TEST_F(EventSchemas, EveryEventTypeIsValidAgainstTheServedDocument) {
  // Stablecoin payouts: completed, failed, blocked, and above the auto-approval limit (10,000
  // in test mode) held for approval, then cancelled.
  const auto completed = payout("1.00", random_evm_address());
  const auto failed = payout("1.00", fail_trigger_address());
  const auto blocked = payout("1.00", blocked_trigger_address());
  const auto held = payout("20000.00", random_evm_address());
  EXPECT_EQ(wait_for_status(http(), org_.test_key, held, {"pending_approval"}), "pending_approval");
  cancel("/v1/payouts/" + held);
  for (const auto& id : {completed, failed, blocked, held}) {
    EXPECT_TRUE(kPayoutFinal.contains(wait_for_status(http(), org_.test_key, id, kPayoutFinal)));
  }
  // Fiat payouts the same way (250,000 MXN is above the auto-approval limit).
  const auto fiat_completed = fiat_payout("10.00", "Ana Souza");
  const auto fiat_failed = fiat_payout("10.00", "Ana Souza FAIL");
  const auto fiat_blocked = fiat_payout("10.00", "Ana Souza BLOCKED");
  const auto fiat_held = fiat_payout("250000.00", "Ana Souza");
  EXPECT_EQ(wait_for_fiat_status(http(), org_.test_key, fiat_held, {"pending_approval"}),
            "pending_approval");
  cancel("/v1/fiat-payouts/" + fiat_held);
  for (const auto& id : {fiat_completed, fiat_failed, fiat_blocked, fiat_held}) {
    EXPECT_TRUE(
        kPayoutFinal.contains(wait_for_fiat_status(http(), org_.test_key, id, kPayoutFinal)));
  }
  // Collections: paid and settled, failed, expired, cancelled.
  const auto settled = collection();
  ASSERT_EQ(collection_helper(http(), org_.test_key, settled, "receive").status, 202);
  const auto collection_failed = collection();
  ASSERT_EQ(collection_helper(http(), org_.test_key, collection_failed, "fail").status, 202);
  const auto expired = collection();
  ASSERT_EQ(collection_helper(http(), org_.test_key, expired, "expire").status, 202);
  const auto cancelled = collection();
  cancel("/v1/collections/" + cancelled);
  for (const auto& id : {settled, collection_failed, expired, cancelled}) {
    EXPECT_TRUE(kCollectionFinal.contains(
        wait_for_collection(http(), org_.test_key, id, kCollectionFinal)));
  }

  const auto served = http().get("/v1/openapi.json");
  ASSERT_EQ(served.status, 200);
  const auto document = served.json();
  ASSERT_FALSE(document.HasParseError());
  std::set<std::string> documented_types;
  for (const auto& type : document["components"]["schemas"]["EventType"]["enum"].GetArray()) {
    documented_types.insert(type.GetString());
  }
  const auto pages = event_pages();
  std::vector<std::string> events;
  std::set<std::string> seen_types;
  for (const auto& page : pages) {
    rapidjson::Document parsed;
    parsed.Parse(page.c_str());
    for (const auto& event : parsed["data"].GetArray()) {
      events.push_back(model::json::serialize(event));
      seen_types.insert(event["type"].GetString());
    }
  }
  // The outcomes above produce every event type the document lists.
  EXPECT_EQ(seen_types, documented_types);

  const ScratchDirectory scratch;
  const auto document_file = scratch.write("openapi.json", served.body);
  const auto [events_status, events_output] =
      validate(document_file, "Event", scratch.write("events.json", json_list(events)));
  EXPECT_EQ(events_status, 0) << events_output;
  std::cout << events_output;
  EXPECT_NE(events_output.find(std::to_string(events.size()) + " of " +
                               std::to_string(events.size()) + " valid"),
            std::string::npos)
      << events_output;
  const auto [pages_status, pages_output] =
      validate(document_file, "EventList", scratch.write("pages.json", json_list(pages)));
  EXPECT_EQ(pages_status, 0) << pages_output;

  // The same validator refuses events that break their family's schema: a fiat payout event
  // without its country, a collection event whose payload claims to be a payout's.
  std::string fiat_altered, collection_altered;
  for (const auto& text : events) {
    rapidjson::Document event;
    event.Parse(text.c_str());
    const std::string family = event["payload"]["object"].GetString();
    if (family == "fiat_payout" && fiat_altered.empty()) {
      event["payload"].RemoveMember("country");
      fiat_altered = model::json::serialize(event);
    } else if (family == "collection" && collection_altered.empty()) {
      event["payload"]["object"].SetString("payout");
      collection_altered = model::json::serialize(event);
    }
  }
  ASSERT_FALSE(fiat_altered.empty());
  ASSERT_FALSE(collection_altered.empty());
  const std::vector<std::string> altered{fiat_altered, collection_altered};
  const auto [altered_status, altered_output] =
      validate(document_file, "Event", scratch.write("altered.json", json_list(altered)));
  EXPECT_EQ(altered_status, 1) << altered_output;
  EXPECT_NE(altered_output.find("0 of 2 valid"), std::string::npos) << altered_output;
}

}  // namespace
}  // namespace payrail::testing
