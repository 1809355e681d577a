// The answers of creates, read and recorded for replays in groups (docs/architecture.md "The
// path of a payout"). Each answer is a read of the resource and a record of what it answered
// under its Idempotency-Key; the screening worker decides a batch of payouts in one transaction
// and notifies them together, so their answers arrive together. The answers waiting while a
// group is written are written next, together: one read per resource kind and one record
// statement for them all (Pool::autocommit, no transaction: the read has no effect, and the
// record only fills in keys with no answer yet). Nothing waits on purpose: an answer that finds
// no group being written is written at once, alone. At most `group_max` answers a group, and one
// group at a time.
#pragma once

#include <pqxx/pqxx>

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "infra/plumbing/pg/pool.h"
#include "infra/store/creates/idempotency.h"
#include "schemas/model/common/result.h"

namespace payrail::infra::store::creates {

// What a create answered: its status and its JSON body (an error's body included).
struct Answer {
  int status = 0;
  std::string body;
};

// The answer one create waits for: its key, its resource and its request.
struct Wanted {
  idempotency::Scope scope;
  std::string id;
  std::string request_id;
};

struct Resource {
  // Reads the resources in `tx` (one statement for all) and renders each create's answer for its
  // current status, in order; nullopt for one that does not exist in its create's scope (which a
  // committed create rules out).
  std::function<std::vector<std::optional<Answer>>(pqxx::transaction_base& tx,
                                                   const std::vector<Wanted>& wanted)>
      answer;
};

// Resource::answer from a module's find_many(tx, ids) and a rendering of one row (and the
// request id an error's envelope repeats).
template <class FindMany, class Render>
std::vector<std::optional<Answer>> answer_rows(pqxx::transaction_base& tx,
                                               const std::vector<Wanted>& wanted,
                                               FindMany find_many, Render render) {
  std::vector<std::string> ids;
  for (const auto& one : wanted) ids.push_back(one.id);
  auto rows = find_many(tx, ids);
  std::vector<std::optional<Answer>> answers;
  for (const auto& one : wanted) {
    std::optional<Answer> answer;
    for (const auto& row : rows) {
      if (row.resource.id == one.id && row.org_id == one.scope.org_id &&
          row.resource.mode == one.scope.mode) {
        answer = render(row, one.request_id);
      }
    }
    answers.push_back(std::move(answer));
  }
  return answers;
}

class Answers {
 public:
  Answers(pg::Pool& pool, std::size_t group_max);
  Answers(const Answers&) = delete;
  Answers& operator=(const Answers&) = delete;

  // Blocks until the answer is read and recorded. When an answer was recorded for the key
  // before (a retry that found the first request abandoned, or this work before a lost
  // connection made it run again), that one is returned: the first answer stands.
  model::Result<Answer> answer(const Resource& resource, Wanted wanted);

  // Answers waiting for a group (not yet being written).
  std::size_t waiting();

 private:
  struct Item {
    const Resource* resource;
    Wanted wanted;
    std::optional<model::Result<Answer>> result;
  };
  std::vector<Item*> take_group();  // under mutex_
  void write_group(const std::vector<Item*>& group);

  pg::Pool& pool_;
  std::size_t group_max_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<Item*> waiting_;
  bool writing_ = false;
};

}  // namespace payrail::infra::store::creates
