// Grouped reads: reads of one kind that arrive while one is running are made together next, by one
// statement for the whole group instead of one each (a statement's fixed cost, not its rows, is
// most of what a one-row read costs PostgreSQL). Nothing waits on purpose: a read that finds none
// running runs at once, alone. One group runs at a time, of at most `group_max` keys; each reader
// gets the values of its own key, or the group's error.
#pragma once

#include <algorithm>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <functional>
#include <mutex>
#include <optional>
#include <utility>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::infra::pg {

template <class Key, class Value>
class GroupedReads {
 public:
  // The values of every key, one vector per key in the keys' order (empty when it has none). A
  // key may appear more than once.
  using ReadMany =
      std::function<model::Result<std::vector<std::vector<Value>>>(const std::vector<Key>& keys)>;

  GroupedReads(ReadMany read_many, std::size_t group_max)
      : read_many_(std::move(read_many)), group_max_(group_max < 1 ? 1 : group_max) {}
  GroupedReads(const GroupedReads&) = delete;
  GroupedReads& operator=(const GroupedReads&) = delete;

  // Blocks until the group holding `key` has been read.
  model::Result<std::vector<Value>> read(Key key) {
    Item item{std::move(key), std::nullopt};
    std::unique_lock lock(mutex_);
    waiting_.push_back(&item);
    while (!item.result) {
      if (reading_) {
        changed_.wait(lock);
        continue;
      }
      auto group = take_group();
      reading_ = true;
      lock.unlock();
      read_group(group);
      lock.lock();
      reading_ = false;
      changed_.notify_all();
    }
    return std::move(*item.result);
  }

  // Reads waiting for a group (not yet being read).
  std::size_t waiting() {
    std::lock_guard lock(mutex_);
    return waiting_.size();
  }

 private:
  struct Item {
    Key key;
    std::optional<model::Result<std::vector<Value>>> result;
  };

  std::vector<Item*> take_group() {  // under mutex_
    const auto count = std::min(group_max_, waiting_.size());
    std::vector<Item*> group(waiting_.begin(), waiting_.begin() + static_cast<long>(count));
    waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<long>(count));
    return group;
  }

  // Every item gets a result, whatever happens: its reader would otherwise wait for ever.
  void read_group(const std::vector<Item*>& group) {
    std::vector<Key> keys;
    for (const auto* item : group) keys.push_back(item->key);
    std::optional<model::Result<std::vector<std::vector<Value>>>> values;
    try {
      values.emplace(read_many_(keys));
    } catch (const std::exception&) {
      values.emplace(
          model::Error::make(model::ErrorCode::internal_error, "An internal error occurred."));
    }
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!values->ok()) {
        group[i]->result.emplace(values->error());
      } else if (i < values->value().size()) {
        group[i]->result.emplace(std::move(values->value()[i]));
      } else {
        group[i]->result.emplace(std::vector<Value>{});
      }
    }
  }

  ReadMany read_many_;
  std::size_t group_max_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item*> waiting_;
  bool reading_ = false;
};

}  // namespace payrail::infra::pg
