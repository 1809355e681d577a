// The answers of creates, read and recorded in groups (infra::store::creates::Answers), against
// a real database: the answers that wait while a group is written are written next as one group,
// each with its own response and record; an answer recorded for a key first stands; two answers
// for one key never share a group; a resource that cannot be read fails its own answer only.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <functional>
#include <mutex>
#include <thread>

#include "infra/store/creates/answers.h"
#include "infra/store/creates/idempotency.h"
#include "tests/support/database.h"

namespace payrail::testing {
namespace {

namespace idempotency = infra::store::idempotency;
using infra::store::creates::Answer;
using infra::store::creates::Answers;
using infra::store::creates::Resource;
using infra::store::creates::Wanted;

constexpr const char* kOrganization = "org_answers";
constexpr const char* kMissing = "po_missing";

class CreateAnswers : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    database_ = new TestDatabase();
    database_->add_organization(kOrganization);
    pool_ = new infra::pg::Pool({.url = database_->url(), .max_connections = 4});
  }
  static void TearDownTestSuite() {
    delete pool_;
    delete database_;
  }

  // A claimed key with no answer yet, as a create leaves it.
  static idempotency::Scope claimed(const std::string& key, const std::string& resource_id) {
    idempotency::Scope scope{kOrganization, model::Mode::test, key};
    const auto claim = pool_->transact([&](pqxx::work& tx) -> model::Status {
      EXPECT_TRUE(idempotency::claim(tx, scope, "POST /v1/payouts", "hash", resource_id));
      return model::ok_status();
    });
    EXPECT_TRUE(claim.ok());
    return scope;
  }

  // Spins until `done` (at most 10 s: a broken mechanism fails the test instead of hanging it).
  static void wait_until(const std::function<bool()>& done) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::yield();
    EXPECT_TRUE(done());
  }

  static std::string recorded_body(const std::string& key) {
    return database_->scalar(
        "SELECT response_status || ' ' || response_body FROM "
        "idempotency_keys WHERE idempotency_key = '" +
        key + "'");
  }

  // A resource that renders {"id": ...} for every id but kMissing, and notes each read's size.
  // The first read waits until `release` (the group being written while others arrive).
  struct TestResource {
    std::mutex mutex;
    std::vector<std::size_t> read_sizes;
    std::atomic<bool> hold_first{false};
    std::atomic<bool> release{false};
    std::size_t reads() {
      std::lock_guard lock(mutex);
      return read_sizes.size();
    }
    Resource resource{.answer = [this](pqxx::transaction_base&, const std::vector<Wanted>& wanted) {
      bool first;
      {
        std::lock_guard lock(mutex);
        first = read_sizes.empty();
        read_sizes.push_back(wanted.size());
      }
      // Held at most 10 s: a test that fails before releasing it still ends.
      const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
      while (first && hold_first && !release && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
      std::vector<std::optional<Answer>> answers;
      for (const auto& one : wanted) {
        if (one.id == kMissing) {
          answers.emplace_back();
        } else {
          answers.push_back(Answer{201, "{\"id\":\"" + one.id + "\"}"});
        }
      }
      return answers;
    }};
  };

  inline static TestDatabase* database_ = nullptr;
  inline static infra::pg::Pool* pool_ = nullptr;
};

TEST_F(CreateAnswers, AnswersArrivingWhileAGroupIsWrittenAreWrittenTogether) {
  Answers answers(*pool_, 16);
  TestResource test;
  test.hold_first = true;
  std::vector<std::optional<model::Result<Answer>>> results(6);
  std::vector<std::thread> threads;
  for (int i = 0; i < 6; ++i) {
    const auto id = "po_group_" + std::to_string(i);
    const auto scope = claimed("group-" + std::to_string(i), id);
    threads.emplace_back([&, i, id, scope] {
      results[i] = answers.answer(test.resource, Wanted{scope, id, "req_" + std::to_string(i)});
    });
    if (i == 0) {
      wait_until([&] { return test.reads() > 0; });  // the first group is being read
    }
  }
  wait_until([&] { return answers.waiting() >= 5; });
  test.release = true;
  for (auto& thread : threads) thread.join();

  EXPECT_EQ(test.read_sizes, (std::vector<std::size_t>{1, 5}));
  for (int i = 0; i < 6; ++i) {
    ASSERT_TRUE(results[i] && results[i]->ok());
    const auto body = "{\"id\":\"po_group_" + std::to_string(i) + "\"}";
    EXPECT_EQ((*results[i])->body, body);
    EXPECT_EQ(recorded_body("group-" + std::to_string(i)), "201 " + body);
    EXPECT_EQ(database_->scalar("SELECT response_request_id FROM idempotency_keys WHERE "
                                "idempotency_key = 'group-" +
                                std::to_string(i) + "'"),
              "req_" + std::to_string(i));
  }
}

TEST_F(CreateAnswers, AnAnswerRecordedFirstStands) {
  Answers answers(*pool_, 16);
  TestResource test;
  const auto scope = claimed("recorded-first", "po_first");
  ASSERT_TRUE(pool_
                  ->autocommit([&](pqxx::nontransaction& tx) -> model::Status {
                    EXPECT_TRUE(idempotency::complete(tx, scope, 202, "{\"first\":true}", "req_a"));
                    return model::ok_status();
                  })
                  .ok());
  const auto result = answers.answer(test.resource, Wanted{scope, "po_first", "req_b"});
  ASSERT_TRUE(result.ok());
  EXPECT_EQ(result->status, 202);
  EXPECT_EQ(result->body, "{\"first\":true}");
  EXPECT_EQ(recorded_body("recorded-first"), "202 {\"first\":true}");
}

TEST_F(CreateAnswers, TwoAnswersForOneKeyAreNeverInOneGroup) {
  Answers answers(*pool_, 16);
  TestResource test;
  test.hold_first = true;
  const auto other = claimed("same-key-blocker", "po_blocker");
  const auto scope = claimed("same-key", "po_same");
  std::optional<model::Result<Answer>> blocker, first, second;
  std::thread hold([&] {
    blocker = answers.answer(test.resource, Wanted{other, "po_blocker", "r0"});
  });
  wait_until([&] { return test.reads() > 0; });
  std::thread one([&] { first = answers.answer(test.resource, Wanted{scope, "po_same", "r1"}); });
  wait_until([&] { return answers.waiting() >= 1; });  // the first of the two queues first
  std::thread two([&] { second = answers.answer(test.resource, Wanted{scope, "po_same", "r2"}); });
  wait_until([&] { return answers.waiting() >= 2; });
  test.release = true;
  hold.join();
  one.join();
  two.join();

  EXPECT_EQ(test.read_sizes, (std::vector<std::size_t>{1, 1, 1}));
  ASSERT_TRUE(first && first->ok() && second && second->ok());
  EXPECT_EQ((*first)->body, (*second)->body);
  EXPECT_EQ(
      database_->scalar(
          "SELECT response_request_id FROM idempotency_keys WHERE idempotency_key = 'same-key'"),
      "r1");
}

TEST_F(CreateAnswers, AResourceThatCannotBeReadFailsItsOwnAnswerOnly) {
  Answers answers(*pool_, 16);
  TestResource test;
  test.hold_first = true;
  const auto blocker = claimed("missing-blocker", "po_blocker2");
  const auto missing = claimed("missing", kMissing);
  const auto present = claimed("present", "po_present");
  std::optional<model::Result<Answer>> held, lost, found;
  std::thread hold([&] {
    held = answers.answer(test.resource, Wanted{blocker, "po_blocker2", "r0"});
  });
  wait_until([&] { return test.reads() > 0; });
  std::thread one([&] { lost = answers.answer(test.resource, Wanted{missing, kMissing, "r1"}); });
  std::thread two([&] {
    found = answers.answer(test.resource, Wanted{present, "po_present", "r2"});
  });
  wait_until([&] { return answers.waiting() >= 2; });
  test.release = true;
  hold.join();
  one.join();
  two.join();

  EXPECT_EQ(test.read_sizes, (std::vector<std::size_t>{1, 2}));
  ASSERT_TRUE(lost && found);
  ASSERT_FALSE(lost->ok());
  EXPECT_EQ(lost->error().code, model::ErrorCode::internal_error);
  EXPECT_EQ(recorded_body("missing"), "");
  ASSERT_TRUE(found->ok());
  EXPECT_EQ(recorded_body("present"), "201 {\"id\":\"po_present\"}");
}

}  // namespace
}  // namespace payrail::testing
