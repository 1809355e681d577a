// Errors as values: domain code returns Result<T>; one table (errors.h) maps each error to the
// HTTP envelope at the API edge.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "schemas/model/common/errors.h"

namespace payrail::model {

struct Error {
  ErrorCode code = ErrorCode::internal_error;
  std::string message;
  std::optional<std::string> param;
  // Extra string members of the error object (for example `payout_id` on screening_blocked).
  std::map<std::string, std::string> extra;
  // Extra response headers (for example Retry-After on 429).
  std::map<std::string, std::string> headers;

  static Error make(ErrorCode code, std::string message,
                    std::optional<std::string> param = std::nullopt) {
    Error error;
    error.code = code;
    error.message = std::move(message);
    error.param = std::move(param);
    return error;
  }
};

inline Error bad_request(std::string message, std::optional<std::string> param = std::nullopt) {
  return Error::make(ErrorCode::bad_request, std::move(message), std::move(param));
}

template <class T>
class [[nodiscard]] Result {
 public:
  Result(T value) : state_(std::move(value)) {}
  Result(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  T& value() & { return std::get<T>(state_); }
  const T& value() const& { return std::get<T>(state_); }
  T&& value() && { return std::get<T>(std::move(state_)); }
  T* operator->() { return &std::get<T>(state_); }
  const T* operator->() const { return &std::get<T>(state_); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  const Error& error() const& { return std::get<Error>(state_); }
  Error&& error() && { return std::get<Error>(std::move(state_)); }

 private:
  std::variant<T, Error> state_;
};

struct Unit {};
using Status = Result<Unit>;
inline Status ok_status() {
  return Status(Unit{});
}

}  // namespace payrail::model
