// Every address validator (schemas/model/payouts/destination.h): each network with each asset and
// mode, on arbitrary text. Accepted addresses must be clean text and normalize without crashing.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "schemas/model/common/text.h"
#include "schemas/model/payouts/destination.h"

using namespace payrail::model;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  static constexpr std::string_view kNetworks[] = {
      "polygon", "arbitrum", "optimism", "base", "bsc", "ethereum", "tron", "solana", "bitcoin"};
  static constexpr Asset kAssets[] = {Asset::USDC, Asset::USDT, Asset::ETH};
  const auto network = kNetworks[data[0] % std::size(kNetworks)];
  const auto asset = kAssets[data[1] % std::size(kAssets)];
  const Mode mode = (data[1] & 0x80) != 0 ? Mode::live : Mode::test;
  const std::string_view address(reinterpret_cast<const char*>(data) + 2, size - 2);
  auto destination = validate_destination(network, address, asset, mode);
  if (destination.ok()) {
    if (!text::is_clean(destination->address)) std::abort();
    (void)normalize_address_for_screening(destination->network, destination->address);
  }
  return 0;
}
