// payrail: the operator and developer command line. Run `payrail help` for the commands.
#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "infra/plumbing/log/log.h"
#include "infra/programs/cli/commands.h"

int main(int argc, char** argv) {
  payrail::infra::log::configure("payrail-cli", payrail::infra::log::Level::warn);
  std::vector<std::string> arguments(argv + 1, argv + argc);
  return payrail::infra::cli::run(arguments);
}
