// Text as it enters the service: every string from a client (JSON strings and member names,
// query names and values, path ids, header values, session claims) must be well-formed UTF-8
// without NUL before anything else looks at it. Lengths are counted in characters (Unicode code
// points), never bytes, as the API reference states them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "schemas/model/common/result.h"

namespace payrail::model::text {

// Well-formed UTF-8 (RFC 3629): no overlong forms, no surrogates (U+D800..U+DFFF, which is how an
// escaped lone surrogate decodes), nothing above U+10FFFF, no truncated sequence.
bool is_valid_utf8(std::string_view bytes);

// Valid UTF-8 and no U+0000 anywhere.
bool is_clean(std::string_view bytes);

// Number of code points; only meaningful for valid UTF-8.
std::size_t character_count(std::string_view utf8);

// A control character (Unicode general category Cc): C0 (U+0000..U+001F), DEL (U+007F) or C1
// (U+0080..U+009F). Fields documented "no control characters" refuse all of them.
constexpr bool is_control(char32_t code) {
  return code < 0x20 || (code >= 0x7F && code <= 0x9F);
}

// Whether valid UTF-8 holds a control character (C1 controls are the sequences C2 80..C2 9F; a
// raw byte 0x80..0x9F is not UTF-8 and never gets this far).
bool has_control(std::string_view utf8);

// bad_request naming `param` (the field, query parameter or header) unless `bytes` is clean.
Status check_clean(std::string_view bytes, std::string_view param);

// A copy safe to put in a response: every ill-formed sequence and every NUL becomes U+FFFD.
std::string sanitized(std::string_view bytes);

}  // namespace payrail::model::text
