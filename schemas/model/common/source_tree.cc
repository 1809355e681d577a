#include "schemas/model/common/source_tree.h"

namespace payrail::model {

std::string_view source_directory() {
  return PAYRAIL_SOURCE_DIR;
}

}  // namespace payrail::model
