#include "schemas/model/organizations/organization_lifecycle.h"

#include <array>
#include <string>

namespace payrail::model {
namespace {

using S = OrganizationStatus;
using T = OrganizationTrigger;
using K = KybStatus;
using KT = KybStatusTrigger;

// clang-format off
constexpr std::array kOrganizationTransitions{
    //                     from           trigger         to            audit action, cancels unsent
    OrganizationTransition{std::nullopt,  T::create,      S::active,    {"organization.created"}},
    OrganizationTransition{S::active,     T::suspend,     S::suspended, {"organization.suspended"}},
    OrganizationTransition{S::suspended,  T::reinstate,   S::active,    {"organization.reinstated"}},
    OrganizationTransition{S::active,     T::close,       S::closed,    {"organization.closed", true}},
    OrganizationTransition{S::suspended,  T::close,       S::closed,    {"organization.closed", true}},
};

constexpr std::array kKybStatusTransitions{
    //                  from           trigger      to
    KybStatusTransition{std::nullopt,  KT::create,  K::unverified, {}},
    KybStatusTransition{K::unverified, KT::submit,  K::pending,    {}},
    KybStatusTransition{K::rejected,   KT::submit,  K::pending,    {}},
    KybStatusTransition{K::pending,    KT::verify,  K::verified,   {}},
    KybStatusTransition{K::pending,    KT::reject,  K::rejected,   {}},
};
// clang-format on

constexpr EnumNames<OrganizationStatus, 4> kStatusNames{
    {"pending", "active", "suspended", "closed"}};
constexpr EnumNames<OrganizationTrigger, 4> kTriggerNames{
    {"create", "suspend", "reinstate", "close"}};
constexpr EnumNames<KybStatus, 4> kKybStatusNames{
    {"unverified", "pending", "verified", "rejected"}};
constexpr EnumNames<KybStatusTrigger, 4> kKybTriggerNames{{"create", "submit", "verify", "reject"}};

}  // namespace

std::span<const OrganizationTransition> organization_transitions() {
  return kOrganizationTransitions;
}

std::optional<OrganizationTransition> find_organization_transition(
    std::optional<OrganizationStatus> from, OrganizationTrigger trigger) {
  return find_transition(organization_transitions(), from, trigger);
}

std::span<const KybStatusTransition> kyb_status_transitions() {
  return kKybStatusTransitions;
}

std::optional<KybStatusTransition> find_kyb_status_transition(std::optional<KybStatus> from,
                                                              KybStatusTrigger trigger) {
  return find_transition(kyb_status_transitions(), from, trigger);
}

bool admits_requests(OrganizationStatus status) {
  return status == OrganizationStatus::active;
}

Status check_standing(OrganizationStatus status) {
  if (admits_requests(status)) return ok_status();
  return Error::make(ErrorCode::org_suspended,
                     "The organization is " + std::string(organization_status_name(status)) + ".");
}

bool admits_live_mode(KybStatus status) {
  return status == KybStatus::verified;
}

std::string_view organization_status_name(OrganizationStatus status) {
  return kStatusNames.name(status);
}

std::optional<OrganizationStatus> parse_organization_status(std::string_view text) {
  return kStatusNames.parse(text);
}

std::string_view organization_trigger_name(OrganizationTrigger trigger) {
  return kTriggerNames.name(trigger);
}

std::string_view kyb_status_name(KybStatus status) {
  return kKybStatusNames.name(status);
}

std::optional<KybStatus> parse_kyb_status(std::string_view text) {
  return kKybStatusNames.parse(text);
}

std::string_view kyb_status_trigger_name(KybStatusTrigger trigger) {
  return kKybTriggerNames.name(trigger);
}

}  // namespace payrail::model
