#include "infra/repositories/organizations.h"

#include "infra/ids.h"
#include "infra/repositories/ledger.h"
#include "infra/repositories/sql.h"
#include "schemas/model/scopes.h"

namespace payrail::infra::repositories::organizations {
namespace {

constexpr pg::Statement kInsert{"organizations_insert", R"sql(
INSERT INTO organizations (id, legal_name, display_name, country, owner_subject)
VALUES ($1, $2, $3, $4, $5)
RETURNING id, legal_name, display_name, country, status, kyb_status, )sql" PAYRAIL_TIMESTAMP(
                                                            "created_at")};

constexpr pg::Statement kInsertOwner{"organizations_insert_owner", R"sql(
INSERT INTO organization_members (org_id, subject, email, role) VALUES ($1, $2, $3, 'owner'))sql"};

constexpr pg::Statement kFind{"organizations_find",
                              R"sql(
SELECT id, legal_name, display_name, country, status, kyb_status, )sql" PAYRAIL_TIMESTAMP(
                                  "created_at") R"sql( FROM organizations WHERE id = $1)sql"};

constexpr pg::Statement kMemberRole{"organizations_member_role", R"sql(
SELECT role FROM organization_members WHERE org_id = $1 AND subject = $2)sql"};

constexpr pg::Statement kSetStatus{"organizations_set_status", R"sql(
UPDATE organizations SET status = $2 WHERE id = $1)sql"};

constexpr pg::Statement kSetKybStatus{"organizations_set_kyb_status", R"sql(
UPDATE organizations SET kyb_status = $2 WHERE id = $1)sql"};

OrganizationRow read_row(const pqxx::row& row) {
  return OrganizationRow{row[0].as<std::string>(), row[1].as<std::string>(),
                         row[2].as<std::string>(), row[3].as<std::string>(),
                         row[4].as<std::string>(), row[5].as<std::string>(),
                         row[6].as<std::string>()};
}

model::Status expect_one_row(const pqxx::result& result) {
  if (result.affected_rows() == 1) return model::ok_status();
  return model::Error::make(model::ErrorCode::resource_missing, "No such organization.");
}

}  // namespace

model::Result<CreatedOrganization> create(pg::Pool& pool, const NewOrganization& request) {
  return pool.transact([&](pqxx::work& tx) -> model::Result<CreatedOrganization> {
    const auto id = new_id("org_");
    const auto inserted = pg::exec(tx, kInsert, id, request.legal_name, request.display_name,
                                   request.country, request.owner_subject);
    pg::exec(tx, kInsertOwner, id, request.owner_subject, request.owner_email);
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
    return std::optional<std::string>(rows[0][0].as<std::string>());
  });
}

model::Status set_status(pg::Pool& pool, std::string_view org_id, std::string_view status) {
  return pool.transact([&](pqxx::work& tx) {
    return expect_one_row(pg::exec(tx, kSetStatus, std::string(org_id), std::string(status)));
  });
}

model::Status set_kyb_status(pg::Pool& pool, std::string_view org_id, std::string_view kyb_status) {
  return pool.transact([&](pqxx::work& tx) {
    return expect_one_row(
        pg::exec(tx, kSetKybStatus, std::string(org_id), std::string(kyb_status)));
  });
}

}  // namespace payrail::infra::repositories::organizations
