// What the code calls impossible, checked always (not only in debug builds): a broken invariant
// stops the process with the invariant's name and where it was checked, instead of carrying on
// with a silent empty value. Never for external input, which gets an error value.
#pragma once

#include <source_location>

namespace payrail::model {

[[noreturn]] void invariant_failed(const char* invariant, const std::source_location& where);

// Stops the process unless `holds`: `invariant` names what must hold ("a lifecycle table has its
// creation row").
inline void invariant(bool holds, const char* invariant,
                      const std::source_location& where = std::source_location::current()) {
  if (!holds) invariant_failed(invariant, where);
}

}  // namespace payrail::model
