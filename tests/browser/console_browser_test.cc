// The web console in a real browser (tests/browser/console.mjs does the browsing): one whole stack
// behind its TLS proxy, as infra/up runs it, and one browser per phase.
//   1. The embedded default (development session secret): the development sign-in.
//   2. The API restarted as production runs it (RS256 keys, no development secret) with a real
//      OpenID provider (oidc-provider from npm) on loopback: every scenario of issue 41.
// Screenshots, axe reports and the exported CSV are kept in build/test-artifacts/console/.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "schemas/model/common/source_tree.h"
#include "tests/support/process.h"
#include "tests/support/stack.h"

namespace payrail::testing {
namespace {

constexpr const char* kClientSecret = "browser-suite-client-secret";

std::string browser_folder() {
  return std::string(model::source_directory()) + "/tests/browser";
}

std::string read_file(const std::string& path) {
  std::ifstream input(path);
  std::stringstream text;
  text << input.rdbuf();
  return text.str();
}

// Runs one phase of console.mjs; its output is kept next to the screenshots.
::testing::AssertionResult run_phase(const std::string& phase, const std::string& artifacts) {
  const auto log = artifacts + "/" + phase + ".log";
  const auto command =
      "cd '" + browser_folder() + "' && node console.mjs " + phase + " > '" + log + "' 2>&1";
  const int status = std::system(command.c_str());
  if (status == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "console.mjs " << phase << " failed:\n" << read_file(log);
}

TEST(ConsoleInABrowser, EveryScenarioWorksAndEveryPageIsAccessible) {
  const std::string artifacts = bin_path("test-artifacts/console");
  std::filesystem::remove_all(artifacts);
  std::filesystem::create_directories(artifacts);

  TestStack stack({.tls = true});
  const auto tls_dir = std::filesystem::path(stack.ca_file()).parent_path().string();
  // The suite's webhook receiver serves the stack's own certificate (localhost, 127.0.0.1).
  stack.process("webhooks").set_env("PAYRAIL_WEBHOOK_CA_FILE", stack.ca_file());
  stack.start("webhooks");

  // What console.mjs needs: where the console is, the certificate files, where to keep its
  // artifacts, and the CLI with this stack's settings for operator commands.
  for (const auto& [name, value] : stack.env()) setenv(name.c_str(), value.c_str(), 1);
  setenv("PAYRAIL_CLI", bin_path("infra/payrail").c_str(), 1);
  setenv("CONSOLE_URL", stack.api_url().c_str(), 1);
  setenv("CONSOLE_TLS_DIR", tls_dir.c_str(), 1);
  setenv("CONSOLE_ARTIFACTS", artifacts.c_str(), 1);
  setenv("NODE_EXTRA_CA_CERTS", stack.ca_file().c_str(), 1);

  ASSERT_TRUE(run_phase("development", artifacts));

  const int provider_port = free_port();
  const auto jwks = artifacts + "/provider-jwks.json";
  ChildProcess provider("oidc-provider", "/usr/bin/node", {},
                        {browser_folder() + "/oidc_provider.mjs", std::to_string(provider_port),
                         stack.api_url() + "/console/callback", kClientSecret, jwks});
  provider.start();
  ASSERT_TRUE(provider.wait_for_log("oidc-provider ready", std::chrono::seconds(30)))
      << provider.log();
  auto& api = stack.process("api");
  api.set_env("PAYRAIL_IDP_HS256_SECRET", "");  // empty is unset: RS256 only
  api.set_env("PAYRAIL_IDP_JWKS_FILE", jwks);
  api.set_env("PAYRAIL_IDP_ISSUER", "http://127.0.0.1:" + std::to_string(provider_port));
  api.set_env("PAYRAIL_CONSOLE_CLIENT_ID", "payrail-console");
  api.set_env("PAYRAIL_CONSOLE_CLIENT_SECRET", kClientSecret);
  stack.start("api");

  EXPECT_TRUE(run_phase("oidc", artifacts));
  provider.stop();
}

}  // namespace
}  // namespace payrail::testing
