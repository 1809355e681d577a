// Fiat account numbers and tax ids (schemas/model/fiat_payouts/account_checks.h: CLABE, CPF, CNPJ,
// CBU, CUIT, NUBAN, IBAN, ABA, NIT), the beneficiary-account validator that applies them per
// corridor, and collections' payment references as payers type them: arbitrary text never crashes
// or overflows, and clean text normalizes to clean text (it is matched in PostgreSQL).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "schemas/model/collections/collection.h"
#include "schemas/model/common/json.h"
#include "schemas/model/common/text.h"
#include "schemas/model/fiat_payouts/account_checks.h"
#include "schemas/model/fiat_payouts/corridors.h"

using namespace payrail::model;
using namespace payrail::model::account_checks;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  (void)clabe_valid(text);
  (void)cpf_valid(text);
  (void)cnpj_valid(text);
  (void)cbu_valid(text);
  (void)cuit_valid(text);
  (void)iban_valid(text);
  (void)aba_routing_valid(text);
  (void)nit_valid(text);
  const auto reference = normalize_reference(text);
  if (text::is_clean(text) && !text::is_clean(reference)) std::abort();
  (void)is_reference(reference);
  const auto split = text.find('|');
  if (split != std::string_view::npos) {
    (void)nuban_valid(text.substr(0, split), text.substr(split + 1));
  }
  // The same bytes as a beneficiary account object, for every corridor.
  auto account = json::parse_object(text);
  if (!account.ok()) return 0;
  for (const auto& country : catalog_countries()) {
    for (const auto currency : country.currencies) {
      (void)validate_beneficiary_account(country.country, currency, *account);
    }
  }
  return 0;
}
