// KYB review commands: the operators' queue, one submission in full, and the review itself
// (pending -> in_review -> verified | rejected through
// schemas/model/organizations/kyb_lifecycle.h), each step recorded with the operator's name in
// resource_transitions and the audit log.
#include <cstdio>
#include <string>

#include "infra/plumbing/crypto/data_key.h"
#include "infra/programs/cli/command_table.h"
#include "infra/store/organizations/kyb_submissions.h"
#include "schemas/model/common/json.h"

namespace payrail::infra::cli {
namespace {

namespace submissions = store::kyb_submissions;

constexpr std::size_t kNotesLengthMax = 2000;

std::string text(std::string_view view) {
  return std::string(view);
}

// kyb-list [--status pending|in_review|verified|rejected] [--org org_...] [--limit 100]
int list_submissions(const Config& config, const Options& options) {
  submissions::QueueFilter filter;
  if (const auto status = option(options, "status")) {
    filter.status = model::parse_kyb_submission_status(*status);
    if (!filter.status) return fail("--status must be pending, in_review, verified or rejected");
  }
  filter.org_id = option(options, "org");
  const auto limit = limit_option(options);
  if (!limit) return fail("--limit must be an integer from 1 to 1000");
  filter.limit = *limit;
  auto pool = open_pool(config);
  auto rows = submissions::queue(pool, filter);
  if (!rows.ok()) return fail(rows.error().message);
  for (const auto& row : *rows) {
    std::printf("%s\t%s\t%s\t%s\t%s\n", row.id.c_str(), row.org_id.c_str(),
                text(model::kyb_submission_status_name(row.status)).c_str(), row.created_at.c_str(),
                row.application.legal_name.c_str());
  }
  return 0;
}

void print_submission(const submissions::SubmissionRow& row) {
  const auto& application = row.application;
  std::printf("submission\t%s\norganization\t%s\nstatus\t%s\ncreated_at\t%s\n", row.id.c_str(),
              row.org_id.c_str(), text(model::kyb_submission_status_name(row.status)).c_str(),
              row.created_at.c_str());
  std::printf("legal_name\t%s\nregistration_no\t%s\nincorporation_country\t%s\n",
              application.legal_name.c_str(), application.registration_no.c_str(),
              application.incorporation_country.c_str());
  for (const auto& owner : application.beneficial_owners) {
    std::printf("owner\t%s\t%s\t%s%%\t%s\n", owner.name.c_str(), owner.dob.c_str(),
                owner.ownership_pct.c_str(), owner.country.c_str());
  }
  for (const auto& document : application.documents) {
    std::printf("document\t%s\t%s\n", document.type.c_str(), document.reference.c_str());
  }
  if (row.reviewed_at) {
    std::printf("reviewed_at\t%s\nreviewed_by\t%s\nreview_notes\t%s\n", row.reviewed_at->c_str(),
                row.reviewed_by.value_or("").c_str(), row.review_notes.value_or("").c_str());
  }
}

// kyb-show --submission kyb_...: everything the reviewer needs, owners included (on the
// operator's terminal only; nothing is logged).
int show_submission(const Config& config, const Options& options) {
  const auto id = option(options, "submission");
  if (!id) return fail("kyb-show needs --submission kyb_...");
  auto key = crypto::DataKey::from_hex(config.webhook_encryption_key_hex,
                                       config.webhook_encryption_key_previous_hex);
  if (!key.ok()) return fail(key.error().message);
  auto pool = open_pool(config);
  auto found = submissions::find(pool, *id, *key);
  if (!found.ok()) return fail(found.error().message);
  if (!*found) return fail("no such KYB submission: " + *id);
  print_submission(**found);
  return 0;
}

// kyb-review --submission kyb_... --to in_review|verified|rejected [--notes text]
//            [--operator name]
int review_submission(const Config& config, const Options& options) {
  const auto id = option(options, "submission");
  const auto to_text = option(options, "to");
  const auto to = to_text ? model::parse_kyb_submission_status(*to_text) : std::nullopt;
  const auto actor = operator_name(options);
  if (!id || !to || !actor) {
    return fail(
        "kyb-review needs --submission kyb_..., --to in_review|verified|rejected and an "
        "operator (--operator name, or PAYRAIL_OPERATOR / USER)");
  }
  const auto notes = option(options, "notes");
  if (notes) {
    if (auto checked = model::json::check_text(*notes, "--notes", kNotesLengthMax); !checked.ok()) {
      return fail(checked.error().message);
    }
  }
  auto pool = open_pool(config);
  auto reviewed = submissions::review(pool, {*id, *to, notes, *actor});
  if (!reviewed.ok()) return fail(reviewed.error().message);
  std::printf("%s is %s (organization %s)\n", reviewed->id.c_str(),
              text(model::kyb_submission_status_name(reviewed->status)).c_str(),
              reviewed->org_id.c_str());
  return 0;
}

}  // namespace

void add_kyb_commands(CommandTable& table) {
  table["kyb-list"] = {
      "kyb-list [--status pending|in_review|verified|rejected] [--org org_...] [--limit 100]",
      "the KYB review queue, oldest first", list_submissions};
  table["kyb-show"] = {"kyb-show --submission kyb_...",
                       "one KYB submission in full, beneficial owners included", show_submission};
  table["kyb-review"] = {
      "kyb-review --submission kyb_... --to in_review|verified|rejected [--notes text]",
      "review a KYB submission (rejected needs --notes for the business)", review_submission};
}

}  // namespace payrail::infra::cli
