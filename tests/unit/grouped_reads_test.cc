// pg::GroupedReads without a database: a read that finds none running is made at once and alone;
// the reads that arrive while one runs are made together next, each reader getting the values of
// its own key (a key given twice gets them twice); a failure of the group's read is every
// reader's.
#include "infra/plumbing/pg/grouped_reads.h"

#include <gtest/gtest.h>

#include <atomic>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

namespace payrail::infra::pg {
namespace {

using Reads = GroupedReads<std::string, std::string>;
using Values = std::vector<std::vector<std::string>>;

// Each key's values: the key twice, marked.
Values values_of(const std::vector<std::string>& keys) {
  Values values;
  for (const auto& key : keys) values.push_back({key + "-1", key + "-2"});
  return values;
}

TEST(GroupedReads, AReadThatFindsNoneRunningIsMadeAtOnceAndAlone) {
  std::vector<std::vector<std::string>> calls;
  Reads reads(
      [&](const std::vector<std::string>& keys) -> model::Result<Values> {
        calls.push_back(keys);
        return values_of(keys);
      },
      8);
  const auto read = reads.read("a");
  ASSERT_TRUE(read.ok());
  EXPECT_EQ(read.value(), (std::vector<std::string>{"a-1", "a-2"}));
  ASSERT_EQ(calls.size(), 1u);
  EXPECT_EQ(calls[0], std::vector<std::string>{"a"});
}

TEST(GroupedReads, ReadsThatArriveWhileOneRunsAreMadeTogetherNext) {
  std::mutex calls_mutex;
  std::vector<std::vector<std::string>> calls;
  std::atomic<bool> first_running = false;
  Reads* shared = nullptr;
  Reads reads(
      [&](const std::vector<std::string>& keys) -> model::Result<Values> {
        {
          std::lock_guard lock(calls_mutex);
          calls.push_back(keys);
        }
        if (keys == std::vector<std::string>{"first"}) {
          first_running = true;
          while (shared->waiting() < 3) std::this_thread::yield();
        }
        return values_of(keys);
      },
      8);
  shared = &reads;
  std::thread first([&] { EXPECT_TRUE(reads.read("first").ok()); });
  while (!first_running) std::this_thread::yield();
  std::vector<model::Result<std::vector<std::string>>> results(3, std::vector<std::string>{});
  const std::vector<std::string> keys = {"b", "c", "b"};
  std::vector<std::thread> others;
  for (std::size_t i = 0; i < keys.size(); ++i) {
    others.emplace_back([&, i] { results[i] = reads.read(keys[i]); });
  }
  for (auto& other : others) other.join();
  first.join();
  ASSERT_EQ(calls.size(), 2u);
  ASSERT_EQ(calls[1].size(), 3u);
  for (std::size_t i = 0; i < keys.size(); ++i) {
    ASSERT_TRUE(results[i].ok());
    EXPECT_EQ(results[i].value(), (std::vector<std::string>{keys[i] + "-1", keys[i] + "-2"}));
  }
}

TEST(GroupedReads, AFailedReadIsEveryReadersOfItsGroup) {
  Reads failing(
      [](const std::vector<std::string>&) -> model::Result<Values> {
        return model::Error::make(model::ErrorCode::service_unavailable, "down");
      },
      8);
  const auto refused = failing.read("a");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.error().code, model::ErrorCode::service_unavailable);
  Reads throwing(
      [](const std::vector<std::string>&) -> model::Result<Values> {
        throw std::runtime_error("broken");
      },
      8);
  const auto thrown = throwing.read("a");
  ASSERT_FALSE(thrown.ok());
  EXPECT_EQ(thrown.error().code, model::ErrorCode::internal_error);
  // And a reader comes back after the failure: nothing is left waiting.
  EXPECT_EQ(throwing.waiting(), 0u);
}

}  // namespace
}  // namespace payrail::infra::pg
