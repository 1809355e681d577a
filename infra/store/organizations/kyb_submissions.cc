#include "infra/store/organizations/kyb_submissions.h"

#include <algorithm>
#include <map>
#include <stdexcept>

#include "infra/plumbing/ids.h"
#include "infra/plumbing/pg/sql_array.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/organizations/audit.h"
#include "infra/store/organizations/organizations.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"

namespace payrail::infra::store::kyb_submissions {
namespace {

constexpr int kQueueLimitMax = 1000;
constexpr std::string_view kResource = "kyb_submission";

// The columns read_row() maps, by name (sql::column).
constexpr auto kColumns = sql::concat(
    "id, org_id, status, legal_name, registration_no, incorporation_country, review_notes, "
    "reviewed_by, ",
    sql::timestamp("reviewed_at"), ", ", sql::timestamp("created_at"));

constexpr auto kInsertSql = sql::concat(
    "INSERT INTO kyb_submissions (id, org_id, status, legal_name, registration_no, "
    "incorporation_country) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ",
    kColumns);
constexpr pg::Statement kInsert{"kyb_insert", kInsertSql.c_str()};

constexpr pg::Statement kInsertOwner{"kyb_insert_owner", R"sql(
INSERT INTO kyb_beneficial_owners (submission_id, position, name_sealed, dob_sealed, ownership_pct,
                                   country)
VALUES ($1, $2, $3, $4, $5::numeric, $6))sql"};

constexpr pg::Statement kInsertDocument{"kyb_insert_document", R"sql(
INSERT INTO kyb_documents (submission_id, position, type, reference) VALUES ($1, $2, $3, $4))sql"};

// The orders qualified: a bare created_at would name the select list's text column (in ORDER BY
// an output column's name wins over the table's), sorting by the text, to the second, and not by
// the index.
constexpr auto kListSql = sql::concat(
    "SELECT ", kColumns, " FROM kyb_submissions WHERE ($6::text IS NULL OR status = $6) AND",
    organization_keyset_conditions("kyb_submissions"),
    " ORDER BY kyb_submissions.created_at DESC, id DESC LIMIT $2");
constexpr pg::Statement kList{"kyb_list", kListSql.c_str(), pg::Plan::custom};

constexpr auto kQueueSql = sql::concat(
    "SELECT ", kColumns,
    " FROM kyb_submissions WHERE ($1::text IS NULL OR status = $1) AND ($2::text IS NULL OR "
    "org_id = $2) ORDER BY kyb_submissions.created_at, id LIMIT $3");
constexpr pg::Statement kQueue{"kyb_queue", kQueueSql.c_str(), pg::Plan::custom};

constexpr auto kFindSql = sql::concat("SELECT ", kColumns, " FROM kyb_submissions WHERE id = $1");
constexpr pg::Statement kFind{"kyb_find", kFindSql.c_str()};

constexpr pg::Statement kOrganizationOf{"kyb_organization_of", R"sql(
SELECT org_id FROM kyb_submissions WHERE id = $1)sql"};

constexpr pg::Statement kLock{"kyb_lock", R"sql(
SELECT status FROM kyb_submissions WHERE id = $1 FOR UPDATE)sql"};

// Guarded by the status the transition starts from.
constexpr auto kMoveSql = sql::concat(
    "UPDATE kyb_submissions SET status = $3, review_notes = $4, reviewed_by = $5, reviewed_at = "
    "CASE WHEN $6::boolean THEN now() END WHERE id = $1 AND status = $2 RETURNING ",
    kColumns);
constexpr pg::Statement kMove{"kyb_move", kMoveSql.c_str()};

// The columns load_details() maps, by name.
constexpr sql::Text kOwnerColumns =
    "submission_id, name_sealed, dob_sealed, ownership_pct::text AS ownership_pct, country";
constexpr auto kOwnersSql = sql::concat(
    "SELECT ", kOwnerColumns,
    " FROM kyb_beneficial_owners WHERE submission_id = ANY($1::text[]) ORDER BY submission_id, "
    "position");
constexpr pg::Statement kOwners{"kyb_owners", kOwnersSql.c_str()};

constexpr sql::Text kDocumentColumns = "submission_id, type, reference";
constexpr auto kDocumentsSql = sql::concat(
    "SELECT ", kDocumentColumns,
    " FROM kyb_documents WHERE submission_id = ANY($1::text[]) ORDER BY submission_id, position");
constexpr pg::Statement kDocuments{"kyb_documents", kDocumentsSql.c_str()};

model::Error internal(std::string message) {
  return model::Error::make(model::ErrorCode::internal_error, std::move(message));
}

model::KybSubmissionStatus status_of(const std::string& name) {
  const auto status = model::parse_kyb_submission_status(name);
  // The table's CHECK constraint admits exactly the enum's names.
  if (!status) throw std::logic_error("kyb submission status outside the model");
  return *status;
}

SubmissionRow read_row(const pqxx::row& row) {
  SubmissionRow submission;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  submission.id = row[at("id")].as<std::string>();
  submission.org_id = row[at("org_id")].as<std::string>();
  submission.status = status_of(row[at("status")].as<std::string>());
  submission.application.legal_name = row[at("legal_name")].as<std::string>();
  submission.application.registration_no = row[at("registration_no")].as<std::string>();
  submission.application.incorporation_country = row[at("incorporation_country")].as<std::string>();
  submission.review_notes = optional_text(row[at("review_notes")]);
  submission.reviewed_by = optional_text(row[at("reviewed_by")]);
  submission.reviewed_at = optional_text(row[at("reviewed_at")]);
  submission.created_at = row[at("created_at")].as<std::string>();
  return submission;
}

std::string name_of(std::string_view status) {
  return std::string(status);
}

// Owners (opened) and documents of `rows`, in their submitted order.
model::Status load_details(pqxx::work& tx, std::vector<SubmissionRow>& rows,
                           const crypto::DataKey& key) {
  if (rows.empty()) return model::ok_status();
  std::vector<std::string> ids;
  std::map<std::string, SubmissionRow*> by_id;
  for (auto& row : rows) {
    ids.push_back(row.id);
    by_id[row.id] = &row;
  }
  constexpr auto owner_at = [](std::string_view name) consteval {
    return sql::column(kOwnerColumns, name);
  };
  constexpr auto document_at = [](std::string_view name) consteval {
    return sql::column(kDocumentColumns, name);
  };
  const auto id_array = pg::sql_array(ids);
  for (const auto& owner : pg::exec(tx, kOwners, id_array)) {
    auto name = key.open(pqxx::binarystring(owner[owner_at("name_sealed")]).str());
    auto dob = key.open(pqxx::binarystring(owner[owner_at("dob_sealed")]).str());
    if (!name.ok() || !dob.ok()) {
      return internal("a sealed KYB value cannot be opened with the configured data key");
    }
    by_id.at(owner[owner_at("submission_id")].as<std::string>())
        ->application.beneficial_owners.push_back(
            {std::move(*name), std::move(*dob), owner[owner_at("ownership_pct")].as<std::string>(),
             owner[owner_at("country")].as<std::string>()});
  }
  for (const auto& document : pg::exec(tx, kDocuments, id_array)) {
    by_id.at(document[document_at("submission_id")].as<std::string>())
        ->application.documents.push_back({document[document_at("type")].as<std::string>(),
                                           document[document_at("reference")].as<std::string>()});
  }
  return model::ok_status();
}

struct SealedOwner {
  std::string name;
  std::string dob;
};

model::Result<std::vector<SealedOwner>> seal_owners(const model::KybApplication& application,
                                                    const crypto::DataKey& key) {
  std::vector<SealedOwner> sealed;
  for (const auto& owner : application.beneficial_owners) {
    auto name = key.seal(owner.name);
    if (!name.ok()) return name.error();
    auto dob = key.seal(owner.dob);
    if (!dob.ok()) return dob.error();
    sealed.push_back({std::move(*name), std::move(*dob)});
  }
  return sealed;
}

void insert_content(pqxx::work& tx, const std::string& id, const model::KybApplication& application,
                    const std::vector<SealedOwner>& sealed) {
  for (std::size_t i = 0; i < sealed.size(); ++i) {
    const auto& owner = application.beneficial_owners[i];
    pg::exec(tx, kInsertOwner, id, static_cast<int>(i),
             pqxx::binarystring(sealed[i].name.data(), sealed[i].name.size()),
             pqxx::binarystring(sealed[i].dob.data(), sealed[i].dob.size()), owner.ownership_pct,
             owner.country);
  }
  for (std::size_t i = 0; i < application.documents.size(); ++i) {
    const auto& document = application.documents[i];
    pg::exec(tx, kInsertDocument, id, static_cast<int>(i), document.type, document.reference);
  }
}

void record(pqxx::work& tx, const SubmissionRow& row,
            const model::KybSubmissionTransition& transition, std::string_view actor) {
  resource_transitions::log(
      tx, {kResource, row.id,
           transition.from ? std::optional<std::string_view>(
                                 model::kyb_submission_status_name(*transition.from))
                           : std::nullopt,
           model::kyb_submission_status_name(transition.to),
           model::kyb_submission_trigger_name(transition.trigger), actor});
  audit::record(tx, {.actor = std::string(actor),
                     .action = std::string(transition.effects.audit_action),
                     .org_id = row.org_id,
                     .resource_type = std::string(kResource),
                     .resource_id = row.id,
                     .details = row.review_notes});
}

model::Status check_notes(const model::KybSubmissionTransition& transition,
                          const std::optional<std::string>& notes) {
  const auto to = name_of(model::kyb_submission_status_name(transition.to));
  if (notes && transition.effects.notes == model::ReviewNotes::not_accepted) {
    return model::bad_request("Notes are not taken when moving a submission to " + to + ".");
  }
  if (!notes && transition.effects.notes == model::ReviewNotes::required) {
    return model::bad_request("Moving a submission to " + to + " needs notes for the business.");
  }
  return model::ok_status();
}

}  // namespace

model::Result<SubmissionRow> submit(pg::Pool& pool, std::string_view org_id,
                                    const model::KybApplication& application,
                                    const crypto::DataKey& key, std::string_view actor) {
  auto sealed = seal_owners(application, key);
  if (!sealed.ok()) return sealed.error();
  const auto transition =
      *model::find_kyb_submission_transition(std::nullopt, model::KybSubmissionTrigger::submit);
  return pool.transact([&](pqxx::work& tx) -> model::Result<SubmissionRow> {
    const auto standing = organizations::lock_standing(tx, org_id);
    if (!standing) {
      return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
    }
    // Checked again under the lock: a suspension or close may have come since the request's gate.
    if (auto admitted = model::check_standing(standing->status); !admitted.ok()) {
      return admitted.error();
    }
    if (const auto refusal = model::submission_refusal(standing->kyb_status)) {
      return model::Error::make(*refusal, *refusal == model::ErrorCode::kyb_already_verified
                                              ? "The business is already verified."
                                              : "A KYB submission is already pending or in "
                                                "review; wait for its outcome.");
    }
    const auto id = new_id("kyb_");
    auto row = read_row(pg::exec(tx, kInsert, id, std::string(org_id),
                                 name_of(model::kyb_submission_status_name(transition.to)),
                                 application.legal_name, application.registration_no,
                                 application.incorporation_country)[0]);
    insert_content(tx, id, application, *sealed);
    if (auto moved = organizations::move_kyb_status(tx, org_id, standing->kyb_status,
                                                    *transition.effects.organization_kyb, actor);
        !moved.ok()) {
      return moved.error();
    }
    record(tx, row, transition, actor);
    row.application = application;
    return row;
  });
}

model::Result<Page<SubmissionRow>> list(pg::Pool& pool, std::string_view org_id,
                                        std::optional<model::KybSubmissionStatus> status,
                                        const ListQuery& query, const crypto::DataKey& key) {
  std::optional<std::string> status_name;
  if (status) status_name = name_of(model::kyb_submission_status_name(*status));
  return pool.transact([&](pqxx::work& tx) -> model::Result<Page<SubmissionRow>> {
    std::vector<SubmissionRow> rows;
    for (const auto& row :
         pg::exec(tx, kList, std::string(org_id), query.limit + 1, query.starting_after,
                  query.created_gte, query.created_lte, status_name)) {
      rows.push_back(read_row(row));
    }
    auto page = make_page(std::move(rows), query.limit);
    if (auto loaded = load_details(tx, page.items, key); !loaded.ok()) return loaded.error();
    return page;
  });
}

model::Result<std::vector<SubmissionRow>> queue(pg::Pool& pool, const QueueFilter& filter) {
  std::optional<std::string> status;
  if (filter.status) status = name_of(model::kyb_submission_status_name(*filter.status));
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::vector<SubmissionRow>> {
    std::vector<SubmissionRow> rows;
    for (const auto& row :
         pg::exec(tx, kQueue, status, filter.org_id, std::clamp(filter.limit, 1, kQueueLimitMax))) {
      rows.push_back(read_row(row));
    }
    return rows;
  });
}

model::Result<std::optional<SubmissionRow>> find(pg::Pool& pool, std::string_view submission_id,
                                                 const crypto::DataKey& key) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<SubmissionRow>> {
    const auto found = pg::exec(tx, kFind, std::string(submission_id));
    if (found.empty()) return std::optional<SubmissionRow>();
    std::vector<SubmissionRow> rows{read_row(found[0])};
    if (auto loaded = load_details(tx, rows, key); !loaded.ok()) return loaded.error();
    return std::optional<SubmissionRow>(std::move(rows[0]));
  });
}

model::Result<SubmissionRow> review(pg::Pool& pool, const Review& review) {
  const auto missing = model::Error::make(model::ErrorCode::resource_missing,
                                          "No such KYB submission: " + review.submission_id);
  return pool.transact([&](pqxx::work& tx) -> model::Result<SubmissionRow> {
    // Locks in the order submit takes them: the organization, then the submission.
    const auto owner = pg::exec(tx, kOrganizationOf, review.submission_id);
    if (owner.empty()) return missing;
    const auto org_id = scalar<std::string>(owner);
    const auto standing = organizations::lock_standing(tx, org_id);
    const auto locked = pg::exec(tx, kLock, review.submission_id);
    if (!standing || locked.empty()) return missing;
    const auto from = status_of(scalar<std::string>(locked));
    const auto transition = model::find_kyb_submission_transition_to(from, review.to);
    if (!transition) {
      return model::bad_request(
          review.submission_id + " is " + name_of(model::kyb_submission_status_name(from)) +
          "; it cannot move to " + name_of(model::kyb_submission_status_name(review.to)) + ".");
    }
    if (auto notes = check_notes(*transition, review.notes); !notes.ok()) return notes.error();
    const auto decided = transition->effects.decision;
    const auto moved =
        pg::exec(tx, kMove, review.submission_id, name_of(model::kyb_submission_status_name(from)),
                 name_of(model::kyb_submission_status_name(transition->to)), review.notes,
                 decided ? std::optional<std::string>(review.actor) : std::nullopt, decided);
    if (moved.affected_rows() != 1) return internal("kyb submission changed under a lock");
    auto row = read_row(moved[0]);
    if (const auto follows = transition->effects.organization_kyb) {
      if (auto status = organizations::move_kyb_status(tx, org_id, standing->kyb_status, *follows,
                                                       review.actor);
          !status.ok()) {
        return status.error();
      }
    }
    record(tx, row, *transition, review.actor);
    return row;
  });
}

}  // namespace payrail::infra::store::kyb_submissions
