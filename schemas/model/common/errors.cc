#include "schemas/model/common/errors.h"

#include <array>
#include <cstdlib>

namespace payrail::model {
namespace {

constexpr std::string_view kInvalidRequest = "invalid_request_error";
constexpr std::string_view kAuthentication = "authentication_error";
constexpr std::string_view kPermission = "permission_error";
constexpr std::string_view kRateLimit = "rate_limit_error";
constexpr std::string_view kCompliance = "compliance_error";
constexpr std::string_view kApi = "api_error";

constexpr std::array kErrorSpecs{
    ErrorSpec{ErrorCode::bad_request, 400, kInvalidRequest, "bad_request"},
    ErrorSpec{ErrorCode::payload_too_large, 413, kInvalidRequest, "bad_request"},
    ErrorSpec{ErrorCode::unsupported_media_type, 415, kInvalidRequest, "bad_request"},
    ErrorSpec{ErrorCode::method_not_allowed, 405, kInvalidRequest, "method_not_allowed"},
    ErrorSpec{ErrorCode::request_timeout, 408, kInvalidRequest, "request_timeout"},
    ErrorSpec{ErrorCode::api_key_missing, 401, kAuthentication, "api_key_missing"},
    ErrorSpec{ErrorCode::api_key_invalid, 401, kAuthentication, "api_key_invalid"},
    ErrorSpec{ErrorCode::session_invalid, 401, kAuthentication, "session_invalid"},
    ErrorSpec{ErrorCode::scope_insufficient, 403, kPermission, "scope_insufficient"},
    ErrorSpec{ErrorCode::session_required, 403, kPermission, "session_required"},
    ErrorSpec{ErrorCode::org_suspended, 403, kPermission, "org_suspended"},
    ErrorSpec{ErrorCode::kyb_required, 403, kCompliance, "kyb_required"},
    ErrorSpec{ErrorCode::kyb_already_verified, 409, kInvalidRequest, "kyb_already_verified"},
    ErrorSpec{ErrorCode::kyb_in_review, 409, kInvalidRequest, "kyb_in_review"},
    ErrorSpec{ErrorCode::screening_blocked, 403, kCompliance, "screening_blocked"},
    ErrorSpec{ErrorCode::limit_exceeded, 403, kCompliance, "limit_exceeded"},
    ErrorSpec{ErrorCode::insufficient_balance, 402, kInvalidRequest, "insufficient_balance"},
    ErrorSpec{ErrorCode::idempotency_conflict, 409, kInvalidRequest, "idempotency_conflict"},
    ErrorSpec{ErrorCode::payout_not_cancelable, 409, kInvalidRequest, "payout_not_cancelable"},
    ErrorSpec{ErrorCode::payout_not_approvable, 409, kInvalidRequest, "payout_not_approvable"},
    ErrorSpec{ErrorCode::collection_not_cancelable, 409, kInvalidRequest,
              "collection_not_cancelable"},
    ErrorSpec{ErrorCode::collection_unexpected_state, 409, kInvalidRequest,
              "collection_unexpected_state"},
    ErrorSpec{ErrorCode::unsupported_destination, 422, kInvalidRequest, "unsupported_destination"},
    ErrorSpec{ErrorCode::unsupported_country, 422, kInvalidRequest, "unsupported_country"},
    ErrorSpec{ErrorCode::unsupported_method, 422, kInvalidRequest, "unsupported_method"},
    ErrorSpec{ErrorCode::resource_missing, 404, kInvalidRequest, "resource_missing"},
    ErrorSpec{ErrorCode::not_found, 404, kInvalidRequest, "not_found"},
    ErrorSpec{ErrorCode::rate_limited, 429, kRateLimit, "rate_limited"},
    ErrorSpec{ErrorCode::resource_limit_reached, 409, kInvalidRequest, "resource_limit_reached"},
    ErrorSpec{ErrorCode::sanctions_unavailable, 503, kCompliance, "sanctions_unavailable"},
    ErrorSpec{ErrorCode::provider_unavailable, 503, kApi, "provider_unavailable"},
    ErrorSpec{ErrorCode::service_unavailable, 503, kApi, "service_unavailable"},
    ErrorSpec{ErrorCode::internal_error, 500, kApi, "internal_error"},
    ErrorSpec{ErrorCode::header_fields_too_large, 431, kInvalidRequest, "bad_request"},
    ErrorSpec{ErrorCode::uri_too_long, 414, kInvalidRequest, "bad_request"},
    ErrorSpec{ErrorCode::credentials_ambiguous, 401, kAuthentication, "credentials_ambiguous"},
    ErrorSpec{ErrorCode::csrf_failed, 403, kPermission, "csrf_failed"},
};

constexpr bool table_is_indexed_by_code() {
  for (std::size_t i = 0; i < kErrorSpecs.size(); ++i) {
    if (static_cast<std::size_t>(kErrorSpecs[i].code) != i) return false;
  }
  return true;
}
static_assert(table_is_indexed_by_code(), "kErrorSpecs must list codes in enum order");

}  // namespace

std::size_t error_code_count() {
  return kErrorSpecs.size();
}

const ErrorSpec& error_spec(ErrorCode code) {
  const auto index = static_cast<std::size_t>(code);
  if (index >= kErrorSpecs.size()) std::abort();  // unreachable: every enumerator is listed
  return kErrorSpecs[index];
}

}  // namespace payrail::model
