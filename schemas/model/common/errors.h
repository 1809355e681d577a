// The error catalogue: every error the service can return, with its HTTP status, envelope type
// and wire code: the contract's table (docs/api.md "Errors") plus the documented extensions in
// docs/errors.md.
#pragma once

#include <cstddef>
#include <string_view>

namespace payrail::model {

enum class ErrorCode {
  bad_request,
  payload_too_large,       // 413, wire code bad_request
  unsupported_media_type,  // 415, wire code bad_request
  method_not_allowed,      // 405
  request_timeout,         // 408
  api_key_missing,
  api_key_invalid,
  session_invalid,
  scope_insufficient,
  session_required,
  org_suspended,
  kyb_required,
  kyb_already_verified,
  kyb_in_review,
  screening_blocked,
  limit_exceeded,
  insufficient_balance,
  idempotency_conflict,
  payout_not_cancelable,
  payout_not_approvable,
  collection_not_cancelable,
  collection_unexpected_state,  // a collection test helper that does not apply in its status
  unsupported_destination,
  unsupported_country,
  unsupported_method,
  resource_missing,
  not_found,
  rate_limited,
  resource_limit_reached,
  sanctions_unavailable,
  provider_unavailable,
  service_unavailable,
  internal_error,
  // Appended below; the table in errors.cc is indexed by these values.
  header_fields_too_large,  // 431, wire code bad_request
  uri_too_long,             // 414, wire code bad_request
  credentials_ambiguous,    // 401: two different credentials in one request
  csrf_failed,              // 403: a console request that changes state without its CSRF proof
};

struct ErrorSpec {
  ErrorCode code;
  int http_status;
  std::string_view type;
  std::string_view wire_code;
};

const ErrorSpec& error_spec(ErrorCode code);
// How many codes the table has: ErrorCode values run from 0 to error_code_count() - 1.
std::size_t error_code_count();

}  // namespace payrail::model
