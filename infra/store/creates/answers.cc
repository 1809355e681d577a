#include "infra/store/creates/answers.h"

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace payrail::infra::store::creates {
namespace {

model::Error internal_error() {
  return model::Error::make(model::ErrorCode::internal_error, "An internal error occurred.");
}

// The answer recorded for the key first: that one is the answer, every time.
model::Result<Answer> recorded_first(pqxx::transaction_base& tx, const idempotency::Scope& scope) {
  const auto record = idempotency::find(tx, scope);
  if (!record || !record->response_status || !record->response_body) return internal_error();
  return Answer{*record->response_status, *record->response_body};
}

}  // namespace

Answers::Answers(pg::Pool& pool, std::size_t group_max)
    : pool_(pool), group_max_(std::max<std::size_t>(1, group_max)) {}

model::Result<Answer> Answers::answer(const Resource& resource, Wanted wanted) {
  Item item{&resource, std::move(wanted), std::nullopt};
  std::unique_lock lock(mutex_);
  waiting_.push_back(&item);
  while (!item.result) {
    if (writing_) {
      changed_.wait(lock);
      continue;
    }
    auto group = take_group();
    writing_ = true;
    lock.unlock();
    try {
      write_group(group);
    } catch (const std::exception&) {
      // Never leave an answer without a result: its thread would wait for ever.
      for (auto* member : group) {
        if (!member->result) member->result = internal_error();
      }
    }
    lock.lock();
    writing_ = false;
    changed_.notify_all();
  }
  return std::move(*item.result);
}

std::size_t Answers::waiting() {
  std::lock_guard lock(mutex_);
  return waiting_.size();
}

// The oldest waiting answers, one per key: complete_many() records one answer per key.
std::vector<Answers::Item*> Answers::take_group() {
  std::vector<Item*> group;
  std::set<std::tuple<std::string, model::Mode, std::string>> keys;
  for (auto it = waiting_.begin(); it != waiting_.end() && group.size() < group_max_;) {
    const auto& scope = (*it)->wanted.scope;
    if (!keys.emplace(scope.org_id, scope.mode, scope.key).second) {
      ++it;
      continue;
    }
    group.push_back(*it);
    it = waiting_.erase(it);
  }
  return group;
}

void Answers::write_group(const std::vector<Item*>& group) {
  using Results = std::vector<model::Result<Answer>>;
  auto results = pool_.autocommit([&](pqxx::nontransaction& tx) -> model::Result<Results> {
    std::vector<std::optional<Answer>> answers(group.size());
    std::map<const Resource*, std::vector<std::size_t>> by_resource;
    for (std::size_t i = 0; i < group.size(); ++i) by_resource[group[i]->resource].push_back(i);
    for (const auto& [resource, indices] : by_resource) {
      std::vector<Wanted> wanted;
      for (const auto i : indices) wanted.push_back(group[i]->wanted);
      auto rendered = resource->answer(tx, wanted);
      for (std::size_t k = 0; k < indices.size(); ++k) answers[indices[k]] = std::move(rendered[k]);
    }
    std::vector<idempotency::Answer> records;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!answers[i]) continue;
      records.push_back({&group[i]->wanted.scope, answers[i]->status, &answers[i]->body,
                         &group[i]->wanted.request_id});
    }
    const auto stored = idempotency::complete_many(tx, records);
    Results out;
    std::size_t record = 0;
    for (std::size_t i = 0; i < group.size(); ++i) {
      if (!answers[i]) {
        out.push_back(internal_error());
      } else if (stored[record++]) {
        out.push_back(std::move(*answers[i]));
      } else {
        out.push_back(recorded_first(tx, group[i]->wanted.scope));
      }
    }
    return out;
  });
  for (std::size_t i = 0; i < group.size(); ++i) {
    if (results.ok()) {
      group[i]->result = std::move(results.value()[i]);
    } else {
      group[i]->result = results.error();
    }
  }
}

}  // namespace payrail::infra::store::creates
