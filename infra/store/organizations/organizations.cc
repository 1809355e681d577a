#include "infra/store/organizations/organizations.h"

#include <stdexcept>

#include "infra/plumbing/ids.h"
#include "infra/store/lifecycle/resource_transitions.h"
#include "infra/store/money/ledger.h"
#include "infra/store/organizations/audit.h"
#include "infra/store/organizations/wind_down.h"
#include "infra/store/sql/sql.h"
#include "infra/store/sql/text.h"
#include "schemas/model/organizations/scopes.h"

namespace payrail::infra::store::organizations {
namespace {

// The columns read_row() maps, by name (sql::column).
constexpr auto kColumns = sql::concat("id, legal_name, display_name, country, status, kyb_status, ",
                                      sql::timestamp("created_at"));

constexpr auto kInsertSql = sql::concat(
    "INSERT INTO organizations (id, legal_name, display_name, country, owner_subject, status, "
    "kyb_status) VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ",
    kColumns);
constexpr pg::Statement kInsert{"organizations_insert", kInsertSql.c_str()};

constexpr pg::Statement kInsertOwner{"organizations_insert_owner", R"sql(
INSERT INTO organization_members (org_id, subject, email, role) VALUES ($1, $2, $3, 'owner'))sql"};

constexpr auto kFindSql = sql::concat("SELECT ", kColumns, " FROM organizations WHERE id = $1");
constexpr pg::Statement kFind{"organizations_find", kFindSql.c_str()};

constexpr pg::Statement kMemberRole{"organizations_member_role", R"sql(
SELECT role FROM organization_members WHERE org_id = $1 AND subject = $2)sql"};

// The columns lock_standing() maps, by name.
constexpr sql::Text kStandingColumns = "status, kyb_status";
constexpr auto kLockStandingSql =
    sql::concat("SELECT ", kStandingColumns, " FROM organizations WHERE id = $1 FOR NO KEY UPDATE");
constexpr pg::Statement kLockStanding{"organizations_lock_standing", kLockStandingSql.c_str()};

constexpr pg::Statement kHoldStanding{"organizations_hold_standing", R"sql(
SELECT status FROM organizations WHERE id = $1 FOR SHARE)sql"};

// Guarded by the status the transition starts from.
constexpr pg::Statement kMoveStatus{"organizations_move_status", R"sql(
UPDATE organizations SET status = $3 WHERE id = $1 AND status = $2)sql"};

constexpr pg::Statement kMoveKybStatus{"organizations_move_kyb_status", R"sql(
UPDATE organizations SET kyb_status = $3 WHERE id = $1 AND kyb_status = $2)sql"};

constexpr std::string_view kStatusResource = "organization";
constexpr std::string_view kKybStatusResource = "organization_kyb_status";

model::OrganizationStatus status_of(const std::string& name) {
  const auto status = model::parse_organization_status(name);
  // The table's CHECK constraints admit exactly the enums' names.
  if (!status) throw std::logic_error("organization status outside the model");
  return *status;
}

model::KybStatus kyb_status_of(const std::string& name) {
  const auto status = model::parse_kyb_status(name);
  if (!status) throw std::logic_error("organization kyb_status outside the model");
  return *status;
}

OrganizationRow read_row(const pqxx::row& row) {
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kColumns, name);
  };
  return OrganizationRow{row[at("id")].as<std::string>(),
                         row[at("legal_name")].as<std::string>(),
                         row[at("display_name")].as<std::string>(),
                         row[at("country")].as<std::string>(),
                         status_of(row[at("status")].as<std::string>()),
                         kyb_status_of(row[at("kyb_status")].as<std::string>()),
                         row[at("created_at")].as<std::string>()};
}

model::Error internal(std::string message) {
  return model::Error::make(model::ErrorCode::internal_error, std::move(message));
}

// The first rows of both tables: what a new organization starts as.
struct Initial {
  model::OrganizationTransition status;
  model::KybStatusTransition kyb_status;
};

Initial initial_states() {
  return {*model::find_organization_transition(std::nullopt, model::OrganizationTrigger::create),
          *model::find_kyb_status_transition(std::nullopt, model::KybStatusTrigger::create)};
}

void log_creation(pqxx::work& tx, std::string_view org_id, const Initial& initial,
                  std::string_view owner) {
  resource_transitions::log(tx, {kStatusResource, org_id, std::nullopt,
                                 model::organization_status_name(initial.status.to),
                                 model::organization_trigger_name(initial.status.trigger), owner});
  resource_transitions::log(
      tx, {kKybStatusResource, org_id, std::nullopt, model::kyb_status_name(initial.kyb_status.to),
           model::kyb_status_trigger_name(initial.kyb_status.trigger), owner});
  audit::record(tx, {.actor = std::string(owner),
                     .action = std::string(initial.status.effects.audit_action),
                     .org_id = std::string(org_id),
                     .resource_type = std::string(kStatusResource),
                     .resource_id = std::string(org_id)});
}

model::Error forbidden_change(std::string_view org_id, model::OrganizationStatus from,
                              model::OrganizationTrigger trigger) {
  return model::bad_request(
      std::string(org_id) + " is " + std::string(model::organization_status_name(from)) + "; " +
      std::string(model::organization_trigger_name(trigger)) + " is not allowed from that status.");
}

}  // namespace

model::Result<CreatedOrganization> create(pg::Pool& pool, const NewOrganization& request) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CreatedOrganization> {
    const auto id = new_id("org_");
    const auto initial = initial_states();
    const auto inserted = pg::exec(tx, kInsert, id, request.legal_name, request.display_name,
                                   request.country, request.owner_subject,
                                   std::string(model::organization_status_name(initial.status.to)),
                                   std::string(model::kyb_status_name(initial.kyb_status.to)));
    pg::exec(tx, kInsertOwner, id, request.owner_subject, request.owner_email);
    log_creation(tx, id, initial, request.owner_subject);
    ledger::open_accounts(tx, id);
    std::vector<std::string> scopes(model::kGrantableScopes.begin(), model::kGrantableScopes.end());
    auto key = api_keys::insert(tx, id, model::Mode::test, std::nullopt, scopes);
    return CreatedOrganization{read_row(inserted[0]), std::move(key)};
  });
}

model::Result<std::optional<OrganizationRow>> find(pg::Pool& pool, std::string_view org_id) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<OrganizationRow>> {
    const auto rows = pg::exec(tx, kFind, std::string(org_id));
    if (rows.empty()) return std::optional<OrganizationRow>();
    return std::optional<OrganizationRow>(read_row(rows[0]));
  });
}

model::Result<std::optional<std::string>> member_role(pg::Pool& pool, std::string_view org_id,
                                                      std::string_view subject) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<std::optional<std::string>> {
    const auto rows = pg::exec(tx, kMemberRole, std::string(org_id), std::string(subject));
    if (rows.empty()) return std::optional<std::string>();
    return std::optional<std::string>(scalar<std::string>(rows));
  });
}

std::optional<Standing> lock_standing(pqxx::work& tx, std::string_view org_id) {
  const auto rows = pg::exec(tx, kLockStanding, std::string(org_id));
  if (rows.empty()) return std::nullopt;
  constexpr auto at = [](std::string_view name) consteval {
    return sql::column(kStandingColumns, name);
  };
  return Standing{status_of(rows[0][at("status")].as<std::string>()),
                  kyb_status_of(rows[0][at("kyb_status")].as<std::string>())};
}

model::Status hold_standing(pqxx::work& tx, std::string_view org_id) {
  const auto rows = pg::exec(tx, kHoldStanding, std::string(org_id));
  if (rows.empty()) {
    return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
  }
  return model::check_standing(status_of(scalar<std::string>(rows)));
}

model::Result<StatusChange> change_status(pg::Pool& pool, std::string_view org_id,
                                          model::OrganizationTrigger trigger,
                                          std::string_view actor,
                                          const std::optional<std::string>& reason) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<StatusChange> {
    const auto standing = lock_standing(tx, org_id);
    if (!standing) {
      return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
    }
    const auto transition = model::find_organization_transition(standing->status, trigger);
    if (!transition) return forbidden_change(org_id, standing->status, trigger);
    const auto from = std::string(model::organization_status_name(standing->status));
    const auto to = std::string(model::organization_status_name(transition->to));
    if (pg::exec(tx, kMoveStatus, std::string(org_id), from, to).affected_rows() != 1) {
      return internal("organization status changed under a lock");
    }
    resource_transitions::log(
        tx, {kStatusResource, org_id, from, to, model::organization_trigger_name(trigger), actor});
    audit::record(tx, {.actor = std::string(actor),
                       .action = std::string(transition->effects.audit_action),
                       .org_id = std::string(org_id),
                       .resource_type = std::string(kStatusResource),
                       .resource_id = std::string(org_id),
                       .details = reason});
    StatusChange change{standing->status, transition->to, {}};
    if (transition->effects.cancels_unsent) change.cancelled = wind_down(tx, org_id, actor);
    return change;
  });
}

model::Status move_kyb_status(pqxx::work& tx, std::string_view org_id, model::KybStatus from,
                              model::KybStatusTrigger trigger,
                              std::optional<std::string_view> actor) {
  const auto transition = model::find_kyb_status_transition(from, trigger);
  if (!transition) {
    return internal("kyb_status " + std::string(model::kyb_status_name(from)) + " has no " +
                    std::string(model::kyb_status_trigger_name(trigger)));
  }
  const auto from_name = std::string(model::kyb_status_name(from));
  const auto to_name = std::string(model::kyb_status_name(transition->to));
  if (pg::exec(tx, kMoveKybStatus, std::string(org_id), from_name, to_name).affected_rows() != 1) {
    return internal("organization kyb_status changed under a lock");
  }
  resource_transitions::log(tx, {kKybStatusResource, org_id, from_name, to_name,
                                 model::kyb_status_trigger_name(trigger), actor});
  return model::ok_status();
}

}  // namespace payrail::infra::store::organizations
