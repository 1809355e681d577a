// HTTP/1.1 request framing (RFC 9112), independent of any socket library: bytes in, whole
// requests out, in order. It decides where each request ends, so it refuses everything two
// implementations could frame differently (request smuggling): a Content-Length that is not
// 1*DIGIT or conflicts with another, Content-Length together with Transfer-Encoding, any transfer
// coding but chunked, obsolete line folding, whitespace before a field's colon, bare CR or LF,
// NUL or other control characters in a field, more than one Host. After an error the parser
// stops: the connection's framing is lost and it must be closed after the error response.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "schemas/model/common/result.h"

namespace payrail::api::http {

struct FramingLimits {
  std::size_t request_line_max_bytes = 8 * 1024;     // beyond: 414
  std::size_t header_section_max_bytes = 16 * 1024;  // request line excluded; beyond: 431
  std::size_t header_fields_max = 100;               // beyond: 431
  std::size_t body_max_bytes = 64 * 1024;            // beyond: 413
  std::size_t chunk_extension_max_bytes = 256;       // per chunk line; beyond: 400
};

struct RawRequest {
  std::string method;
  std::string target;  // origin-form as sent: path and query, not decoded
  bool http10 = false;
  std::vector<std::pair<std::string, std::string>> fields;  // in order, values trimmed
  std::string body;
  bool keep_alive = true;  // false for HTTP/1.0 and for Connection: close
  bool head = false;       // a HEAD request: the response carries no body
};

struct NeedMore {};

using ParseStep = std::variant<NeedMore, RawRequest, model::Error>;

class RequestParser {
 public:
  explicit RequestParser(FramingLimits limits = {}) : limits_(limits) {}

  void feed(std::string_view bytes) { buffer_.append(bytes.data(), bytes.size()); }

  // The next whole request, NeedMore, or an error (after which every call returns it again).
  ParseStep next();

  // True while bytes of an incomplete request are buffered.
  bool has_partial() const { return !failed_ && buffer_.find_first_not_of("\r\n") != npos; }
  // True once the header section of the buffered request is complete (its body is awaited).
  bool headers_complete() const { return head_.has_value(); }
  // Once per request: its header section asked for "Expect: 100-continue" and its body has not
  // arrived yet, so the server should send "100 Continue".
  bool take_continue_request();
  std::size_t buffered_bytes() const { return buffer_.size(); }

 private:
  static constexpr std::size_t npos = std::string::npos;

  struct Head {
    RawRequest request;
    std::size_t body_start = 0;
    std::optional<std::size_t> content_length;  // nullopt with chunked
    bool chunked = false;
    bool continue_requested = false;
  };

  model::Result<Head> parse_head(std::size_t head_end) const;
  ParseStep fail(model::Error error);
  // Chunked body: nullopt while incomplete; on success the index just past the message.
  model::Result<std::optional<std::size_t>> read_chunked(std::string& body) const;

  FramingLimits limits_;
  std::string buffer_;
  std::optional<Head> head_;
  bool continue_sent_ = false;
  bool failed_ = false;
  std::optional<model::Error> error_;
};

// The name/value pairs of a query string, percent-decoded ('+' is kept as it is).
std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query);
std::string percent_decoded(std::string_view text);

}  // namespace payrail::api::http
