#pragma once

#include <cstddef>
#include <string_view>

namespace payrail::model {

// A text file compiled into the binary (migrations, the OpenAPI document).
struct EmbeddedFile {
  std::string_view name;
  std::string_view content;
};

}  // namespace payrail::model
