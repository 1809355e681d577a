// Where this build's checkout is. Files the project ships (data/sanctions) are found from here,
// never from a folder beside or above the checkout. Only source_tree.cc sees the path, so the
// other translation units compile identically wherever the checkout lives (build caches hit).
#pragma once

#include <string_view>

namespace payrail::model {

std::string_view source_directory();

}  // namespace payrail::model
