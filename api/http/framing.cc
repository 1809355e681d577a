#include "api/http/framing.h"

#include <strings.h>

#include <algorithm>
#include <array>

#include "schemas/model/common/hex.h"

namespace payrail::api::http {
namespace {

using model::Error;
using model::ErrorCode;

constexpr std::string_view kCrlf = "\r\n";
constexpr std::array<std::string_view, 8> kMethods{"GET",    "HEAD",  "POST",    "PUT",
                                                   "DELETE", "PATCH", "OPTIONS", "TRACE"};

Error malformed(std::string_view reason, std::optional<std::string> param = std::nullopt) {
  return Error::make(ErrorCode::bad_request, "Malformed HTTP request: " + std::string(reason) + ".",
                     std::move(param));
}

Error body_too_large(const FramingLimits& limits) {
  return Error::make(
      ErrorCode::payload_too_large,
      "The request body exceeds " + std::to_string(limits.body_max_bytes / 1024) + " KiB.");
}

Error header_too_large(const FramingLimits& limits) {
  return Error::make(ErrorCode::header_fields_too_large,
                     "The request header section exceeds " +
                         std::to_string(limits.header_section_max_bytes / 1024) + " KiB or " +
                         std::to_string(limits.header_fields_max) + " fields.");
}

bool is_token_char(char c) {
  if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool is_token(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), is_token_char);
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// Calls `each` with every trimmed, non-empty element of a comma-separated field value.
template <class Each>
void for_each_element(std::string_view value, Each&& each) {
  while (!value.empty()) {
    const auto comma = value.find(',');
    const auto element = trimmed(value.substr(0, comma));
    if (!element.empty()) each(element);
    if (comma == std::string_view::npos) break;
    value.remove_prefix(comma + 1);
  }
}

// Field values may hold visible ASCII, obs-text (0x80-0xFF, checked as UTF-8 later), SP and HTAB.
bool is_field_value(std::string_view value) {
  return std::none_of(value.begin(), value.end(), [](char c) {
    const auto code = static_cast<unsigned char>(c);
    return (code < 0x20 && c != '\t') || code == 0x7F;
  });
}

bool is_request_target(std::string_view target) {
  if (target.empty() || target.front() != '/') return false;
  return std::none_of(target.begin(), target.end(), [](char c) {
    const auto code = static_cast<unsigned char>(c);
    return code <= 0x20 || code == 0x7F;
  });
}

struct Framing {
  std::optional<std::size_t> content_length;
  std::optional<std::string> content_length_digits;  // without leading zeros, to compare
  bool content_length_too_large = false;
  bool transfer_encoding = false;
  bool chunked = false;
  int host_count = 0;
};

// Content-Length = 1*DIGIT (RFC 9112 section 6.2); a list of equal values is one value.
model::Status read_content_length(std::string_view value, const FramingLimits& limits,
                                  Framing& framing) {
  bool valid = true;
  bool seen = false;
  for_each_element(value, [&](std::string_view element) {
    seen = true;
    if (!std::all_of(element.begin(), element.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      valid = false;
      return;
    }
    auto digits = element.substr(std::min(element.find_first_not_of('0'), element.size()));
    if (framing.content_length_digits && *framing.content_length_digits != digits) valid = false;
    framing.content_length_digits = std::string(digits);
    if (digits.size() > 18) {
      framing.content_length_too_large = true;
      return;
    }
    std::size_t length = 0;
    for (const char c : digits) length = length * 10 + static_cast<std::size_t>(c - '0');
    if (length > limits.body_max_bytes) framing.content_length_too_large = true;
    framing.content_length = length;
  });
  if (!valid || !seen) return malformed("invalid or conflicting Content-Length", "Content-Length");
  return model::ok_status();
}

model::Status read_transfer_encoding(std::string_view value, Framing& framing) {
  framing.transfer_encoding = true;
  bool valid = true;
  for_each_element(value, [&](std::string_view coding) {
    // Only chunked is understood, and it must be the one and only coding.
    if (!equals_ignoring_case(coding, "chunked") || framing.chunked) valid = false;
    framing.chunked = true;
  });
  if (!valid || !framing.chunked) {
    return malformed("only Transfer-Encoding: chunked is supported", "Transfer-Encoding");
  }
  return model::ok_status();
}

struct RequestLine {
  std::string_view method;
  std::string_view target;
  std::string_view version;
};

model::Result<RequestLine> split_request_line(std::string_view line) {
  const auto first = line.find(' ');
  const auto second = first == std::string_view::npos ? first : line.find(' ', first + 1);
  if (second == std::string_view::npos || line.find(' ', second + 1) != std::string_view::npos) {
    return malformed("the request line must be 'METHOD /target HTTP/1.1'");
  }
  RequestLine parts{line.substr(0, first), line.substr(first + 1, second - first - 1),
                    line.substr(second + 1)};
  if (std::find(kMethods.begin(), kMethods.end(), parts.method) == kMethods.end()) {
    return malformed("unknown method");
  }
  if (!is_request_target(parts.target)) return malformed("invalid request target");
  if (parts.version != "HTTP/1.1" && parts.version != "HTTP/1.0") {
    return malformed("only HTTP/1.1 and HTTP/1.0 are supported");
  }
  return parts;
}

}  // namespace

model::Result<RequestParser::Head> RequestParser::parse_head(std::size_t head_end) const {
  const std::string_view buffer(buffer_);
  const auto line_end = buffer.find(kCrlf);
  auto line = split_request_line(buffer.substr(0, line_end));
  if (!line.ok()) return line.error();
  Head head;
  head.request.method = std::string(line->method);
  head.request.target = std::string(line->target);
  head.request.http10 = line->version == "HTTP/1.0";
  head.request.head = line->method == "HEAD";
  head.request.keep_alive = !head.request.http10;
  head.body_start = head_end + 4;
  Framing framing;
  std::size_t at = line_end + 2;
  while (at < head_end + 2) {
    const auto end = buffer.find(kCrlf, at);
    const auto field_line = buffer.substr(at, end - at);
    at = end + 2;
    if (field_line.front() == ' ' || field_line.front() == '\t') {
      return malformed("obsolete line folding");
    }
    const auto colon = field_line.find(':');
    if (colon == std::string_view::npos || !is_token(field_line.substr(0, colon))) {
      return malformed("invalid header field name");
    }
    const auto name = std::string(field_line.substr(0, colon));
    const auto value = trimmed(field_line.substr(colon + 1));
    if (!is_field_value(value)) return malformed("control characters in a header field", name);
    if (head.request.fields.size() >= limits_.header_fields_max) return header_too_large(limits_);
    if (equals_ignoring_case(name, "Content-Length")) {
      if (auto status = read_content_length(value, limits_, framing); !status.ok()) {
        return status.error();
      }
    } else if (equals_ignoring_case(name, "Transfer-Encoding")) {
      if (auto status = read_transfer_encoding(value, framing); !status.ok()) {
        return status.error();
      }
    } else if (equals_ignoring_case(name, "Host")) {
      ++framing.host_count;
    } else if (equals_ignoring_case(name, "Connection")) {
      for_each_element(value, [&](std::string_view option) {
        if (equals_ignoring_case(option, "close")) head.request.keep_alive = false;
      });
    } else if (equals_ignoring_case(name, "Expect")) {
      head.continue_requested = equals_ignoring_case(value, "100-continue");
    }
    head.request.fields.emplace_back(name, std::string(value));
  }
  if (framing.host_count > 1 || (framing.host_count == 0 && !head.request.http10)) {
    return malformed("exactly one Host header is required", "Host");
  }
  if (framing.transfer_encoding && (framing.content_length_digits || head.request.http10)) {
    return malformed("Transfer-Encoding with Content-Length or in HTTP/1.0", "Transfer-Encoding");
  }
  if (framing.content_length_too_large) return body_too_large(limits_);
  head.chunked = framing.chunked;
  head.content_length = framing.chunked
                            ? std::nullopt
                            : std::optional<std::size_t>(framing.content_length.value_or(0));
  return head;
}

model::Result<std::optional<std::size_t>> RequestParser::read_chunked(std::string& body) const {
  using Done = std::optional<std::size_t>;
  const std::string_view buffer(buffer_);
  std::size_t at = head_->body_start;
  for (;;) {
    const auto line_end = buffer.find(kCrlf, at);
    const auto line_max = 16 + limits_.chunk_extension_max_bytes + 2;
    if (line_end == std::string_view::npos) {
      if (buffer.size() - at > line_max) return malformed("chunk size line too long");
      return Done();
    }
    const auto line = buffer.substr(at, line_end - at);
    if (line.size() > line_max || !is_field_value(line)) return malformed("invalid chunk line");
    const auto digits = trimmed(line.substr(0, line.find(';')));
    if (digits.empty()) return malformed("invalid chunk size");
    std::size_t size = 0;
    for (const char c : digits) {
      const int digit = model::hex_digit_value(c);
      if (digit < 0) return malformed("invalid chunk size");
      // Checked at every digit, so no size can overflow (ffffffffffffffff is 413, not a wrap).
      size = size * 16 + static_cast<std::size_t>(digit);
      if (size > limits_.body_max_bytes) return body_too_large(limits_);
    }
    const auto data_start = line_end + 2;
    if (size == 0) {  // the last chunk, then optional trailer fields (ignored), then CRLF
      if (buffer.substr(data_start, 2) == kCrlf) return Done(data_start + 2);
      const auto trailer_end = buffer.find("\r\n\r\n", data_start);
      if (trailer_end == std::string_view::npos) {
        if (buffer.size() - data_start > limits_.header_section_max_bytes) {
          return header_too_large(limits_);
        }
        return Done();
      }
      return Done(trailer_end + 4);
    }
    if (buffer.size() < data_start + size + 2) return Done();
    if (buffer.substr(data_start + size, 2) != kCrlf) return malformed("chunk data too long");
    body.append(buffer.substr(data_start, size));
    if (body.size() > limits_.body_max_bytes) return body_too_large(limits_);
    at = data_start + size + 2;
  }
}

ParseStep RequestParser::fail(model::Error error) {
  failed_ = true;
  error_ = error;
  buffer_.clear();
  buffer_.shrink_to_fit();
  head_.reset();
  return error;
}

ParseStep RequestParser::next() {
  if (failed_) return *error_;
  if (!head_) {
    // Empty lines before a request line are ignored (RFC 9112 section 2.2).
    std::size_t start = 0;
    while (buffer_.compare(start, 2, kCrlf) == 0) start += 2;
    buffer_.erase(0, start);
    const auto newline = buffer_.find('\n');
    const auto line_end = buffer_.find(kCrlf);
    if (newline != npos && (line_end == npos || newline < line_end)) {
      return fail(malformed("bare LF"));
    }
    if (line_end == npos) {
      if (buffer_.size() > limits_.request_line_max_bytes) {
        return fail(Error::make(ErrorCode::uri_too_long,
                                "The request line exceeds " +
                                    std::to_string(limits_.request_line_max_bytes / 1024) +
                                    " KiB."));
      }
      return NeedMore{};
    }
    if (line_end > limits_.request_line_max_bytes) {
      return fail(Error::make(ErrorCode::uri_too_long,
                              "The request line exceeds " +
                                  std::to_string(limits_.request_line_max_bytes / 1024) + " KiB."));
    }
    const auto head_end = buffer_.find("\r\n\r\n", line_end);
    const auto section_bytes = (head_end == npos ? buffer_.size() : head_end) - line_end;
    if (section_bytes > limits_.header_section_max_bytes) return fail(header_too_large(limits_));
    if (head_end == npos) return NeedMore{};
    const auto section = std::string_view(buffer_).substr(line_end + 2, head_end - line_end);
    for (std::size_t i = 0; i < section.size(); ++i) {
      const bool crlf = section[i] == '\r' && i + 1 < section.size() && section[i + 1] == '\n';
      if ((section[i] == '\r' && !crlf) ||
          (section[i] == '\n' && (i == 0 || section[i - 1] != '\r'))) {
        return fail(malformed("bare CR or LF in the header section"));
      }
    }
    auto head = parse_head(head_end);
    if (!head.ok()) return fail(std::move(head).error());
    head_ = std::move(head).value();
  }
  std::size_t end = 0;
  if (head_->content_length) {
    end = head_->body_start + *head_->content_length;
    if (buffer_.size() < end) return NeedMore{};
    head_->request.body = buffer_.substr(head_->body_start, *head_->content_length);
  } else {
    std::string body;
    auto done = read_chunked(body);
    if (!done.ok()) return fail(std::move(done).error());
    if (!done->has_value()) return NeedMore{};
    end = **done;
    head_->request.body = std::move(body);
  }
  RawRequest request = std::move(head_->request);
  head_.reset();
  continue_sent_ = false;
  buffer_.erase(0, end);
  return request;
}

bool RequestParser::take_continue_request() {
  if (!head_ || !head_->continue_requested || continue_sent_) return false;
  continue_sent_ = true;
  return true;
}

// Clients encode characters such as ':' in timestamps (created_gte=2026-11-21T00%3A00%3A00Z).
// Malformed escapes are kept as they are, for validation to refuse.
std::string percent_decoded(std::string_view text) {
  std::string decoded;
  decoded.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const bool escape = text[i] == '%' && i + 2 < text.size() &&
                        model::hex_digit_value(text[i + 1]) >= 0 &&
                        model::hex_digit_value(text[i + 2]) >= 0;
    if (!escape) {
      decoded += text[i];
      continue;
    }
    decoded += static_cast<char>(model::hex_digit_value(text[i + 1]) * 16 +
                                 model::hex_digit_value(text[i + 2]));
    i += 2;
  }
  return decoded;
}

std::vector<std::pair<std::string, std::string>> parse_query(std::string_view query) {
  std::vector<std::pair<std::string, std::string>> parameters;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const auto pair = query.substr(0, amp);
    if (!pair.empty()) {
      const auto equals = pair.find('=');
      const auto value =
          equals == std::string_view::npos ? std::string_view() : pair.substr(equals + 1);
      parameters.emplace_back(percent_decoded(pair.substr(0, equals)), percent_decoded(value));
    }
    if (amp == std::string_view::npos) break;
    query.remove_prefix(amp + 1);
  }
  return parameters;
}

}  // namespace payrail::api::http
