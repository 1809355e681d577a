// One hexadecimal digit, as read in percent-escapes, chunk sizes, hex keys and numeric hosts.
#pragma once

namespace payrail::model {

// 0-15 for 0-9, a-f and A-F; -1 for any other character.
constexpr int hex_digit_value(char digit) {
  if (digit >= '0' && digit <= '9') return digit - '0';
  if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
  if (digit >= 'A' && digit <= 'F') return digit - 'A' + 10;
  return -1;
}

}  // namespace payrail::model
