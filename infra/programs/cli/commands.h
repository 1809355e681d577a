#pragma once

#include <string>
#include <vector>

namespace payrail::infra::cli {

// Dispatches `payrail <command> [options]`; returns the process exit code.
int run(const std::vector<std::string>& arguments);

}  // namespace payrail::infra::cli
