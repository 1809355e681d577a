#include "schemas/model/common/invariant.h"

#include <cstdio>
#include <cstdlib>

namespace payrail::model {

void invariant_failed(const char* invariant, const std::source_location& where) {
  // One line on standard error, where the process's logs go, then a core for the post-mortem.
  std::fprintf(stderr, "invariant failed: %s (%s:%u, %s)\n", invariant, where.file_name(),
               static_cast<unsigned>(where.line()), where.function_name());
  std::fflush(stderr);
  std::abort();
}

}  // namespace payrail::model
