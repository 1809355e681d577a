// Identifiers their issuers never assign (issue 38 item 7): all zeros satisfies every weighted-sum
// check, so each scheme also refuses zero where its published layout puts an institution, a
// serial number or a person, whatever check digit follows; and ABA routing numbers carry a
// Federal Reserve routing symbol. Through the corridor validator every such field is 422
// unsupported_country naming it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "schemas/model/common/json.h"
#include "schemas/model/fiat_payouts/account_checks.h"
#include "schemas/model/fiat_payouts/corridors.h"

namespace payrail::model {
namespace {

using namespace account_checks;

// `number` with its character at `position` set to each digit: how many of those are accepted.
template <class Valid>
int accepted_check_digits(std::string number, std::size_t position, const Valid& valid) {
  int accepted = 0;
  for (char digit = '0'; digit <= '9'; ++digit) {
    number[position] = digit;
    accepted += valid(number) ? 1 : 0;
  }
  return accepted;
}

TEST(UnassignedIdentifiers, ClabeBankCodeAndAccountAreNeverZero) {
  EXPECT_FALSE(clabe_valid("000000000000000000"));
  EXPECT_TRUE(clabe_valid("032180000118359719"));                              // Banxico's example
  EXPECT_EQ(accepted_check_digits("000180000118359710", 17, clabe_valid), 0);  // bank 000
  EXPECT_EQ(accepted_check_digits("032180000000000000", 17, clabe_valid), 0);  // account 0
  EXPECT_EQ(accepted_check_digits("032000000118359710", 17, clabe_valid), 1);  // plaza 000: no rule
}

TEST(UnassignedIdentifiers, CbuBankCodeAndAccountAreNeverZero) {
  EXPECT_FALSE(cbu_valid("0000000000000000000000"));
  const auto both_checks = [](std::string cbu) {
    int accepted = 0;
    for (char first = '0'; first <= '9'; ++first) {
      cbu[7] = first;
      accepted += accepted_check_digits(cbu, 21, cbu_valid);
    }
    return accepted;
  };
  EXPECT_EQ(both_checks("0000590040090418135200"), 0);  // bank 000
  EXPECT_EQ(both_checks("2850590000000000000000"), 0);  // account 0
  EXPECT_EQ(both_checks("2850590040090418135200"), 1);
}

TEST(UnassignedIdentifiers, CuitTypeAndNumberAreNeverZero) {
  EXPECT_FALSE(cuit_valid("00000000000"));
  EXPECT_TRUE(cuit_valid("20267565393"));
  EXPECT_EQ(accepted_check_digits("00267565390", 10, cuit_valid), 0);  // type 00
  EXPECT_EQ(accepted_check_digits("20000000000", 10, cuit_valid), 0);  // DNI 0
  EXPECT_EQ(accepted_check_digits("30000000000", 10, cuit_valid), 0);
}

TEST(UnassignedIdentifiers, NubanInstitutionAndSerialAreNeverZero) {
  EXPECT_FALSE(nuban_valid("0000000000", "011"));
  EXPECT_TRUE(nuban_valid("0000014579", "011"));  // CBN's worked example
  EXPECT_EQ(accepted_check_digits("0000014570", 9,
                                  [](std::string_view n) { return nuban_valid(n, "000"); }),
            0);
  EXPECT_EQ(accepted_check_digits("0000014570", 9,
                                  [](std::string_view n) { return nuban_valid(n, "000000"); }),
            0);
}

TEST(UnassignedIdentifiers, CpfCnpjAndNitOfZerosAreRefused) {
  EXPECT_FALSE(cpf_valid("00000000000"));
  EXPECT_FALSE(cnpj_valid("00000000000000"));
  EXPECT_FALSE(nit_valid("0000000000"));
  EXPECT_TRUE(nit_valid("8001972684"));
}

// Every pair of IBAN check digits (ISO 13616: 02 to 98, so exactly one fits a number): none makes
// a zero bank identifier or account valid.
int accepted_iban_check_digits(std::string iban) {
  int accepted = 0;
  for (int check = 2; check <= 98; ++check) {
    iban[2] = static_cast<char>('0' + check / 10);
    iban[3] = static_cast<char>('0' + check % 10);
    accepted += iban_valid(iban) ? 1 : 0;
  }
  return accepted;
}

TEST(UnassignedIdentifiers, IbanBankIdentifiersAndAccountsAreNeverZero) {
  EXPECT_EQ(accepted_iban_check_digits("DE0000000000000000000000"), 0);
  EXPECT_EQ(accepted_iban_check_digits("DE0000000000000532013000"), 0);  // BLZ 00000000
  EXPECT_EQ(accepted_iban_check_digits("DE0037040044000000000000"), 0);  // Kontonummer 0
  EXPECT_EQ(accepted_iban_check_digits("DE0037040044053201300000"), 1);
  EXPECT_EQ(accepted_iban_check_digits("FR00000000000000000000000000"), 0);
  EXPECT_EQ(accepted_iban_check_digits("FR0000000010050500013M02606"), 0);  // code banque 00000
  EXPECT_EQ(accepted_iban_check_digits("ES000000000000000000000000"), 0);
  EXPECT_EQ(accepted_iban_check_digits("ES0000000418450200051332"), 0);     // entidad 0000
  EXPECT_EQ(accepted_iban_check_digits("ES0021000418450000000000"), 0);     // cuenta 0
  EXPECT_EQ(accepted_iban_check_digits("FR0020041010050000000000006"), 0);  // numéro de compte 0
  EXPECT_EQ(accepted_iban_check_digits("ES0021000418450200051332"), 1);
}

TEST(UnassignedIdentifiers, AbaRoutingSymbolsAreTheFederalReservesOnly) {
  EXPECT_FALSE(aba_routing_valid("000000000"));
  EXPECT_TRUE(aba_routing_valid("021000021"));
  for (int prefix = 0; prefix < 100; ++prefix) {
    const bool assigned = prefix <= 12 || (prefix >= 21 && prefix <= 32) ||
                          (prefix >= 61 && prefix <= 72) || prefix == 80;
    std::string routing = std::to_string(prefix / 10) + std::to_string(prefix % 10) + "1000020";
    EXPECT_EQ(accepted_check_digits(routing, 8, aba_routing_valid), assigned ? 1 : 0) << prefix;
  }
}

rapidjson::Document parsed(const std::string& text) {
  rapidjson::Document document;
  document.Parse(text.c_str(), text.size());
  return document;
}

// The method's example account with `field` set to `value`.
Result<ValidatedAccount> validate_with(const PaymentMethod& method, std::string_view field,
                                       const std::string& value) {
  auto account = parsed(example_account(method).full_json());
  account[std::string(field).c_str()].SetString(value.c_str(), account.GetAllocator());
  return validate_beneficiary_account(method.country, method.currency, account);
}

void expect_refused(const Result<ValidatedAccount>& result, const std::string& param,
                    const std::string& context) {
  ASSERT_FALSE(result.ok()) << context << " was accepted";
  EXPECT_EQ(result.error().code, ErrorCode::unsupported_country) << context;
  EXPECT_EQ(result.error().param.value_or(""), param) << context;
}

// Every numeric field of every corridor: zeros of the example's length are refused by name.
TEST(UnassignedIdentifiers, EveryCorridorRefusesAFieldOfZeros) {
  int fields = 0;
  for (const auto& method : payment_methods()) {
    if (method.direction != Direction::payout) continue;
    ASSERT_TRUE(validate_beneficiary_account(method.country, method.currency,
                                             parsed(example_account(method).full_json()))
                    .ok());
    for (const auto& field : method.fields) {
      if (!is_digits(field.example)) continue;
      const auto context = std::string(method.country) + " " + std::string(field.name);
      expect_refused(validate_with(method, field.name, std::string(field.example.size(), '0')),
                     "beneficiary.account." + std::string(field.name), context);
      ++fields;
    }
  }
  // AR cbu, cuit; BR tax_id, bank_code, branch_number, account_number; CA institution, transit,
  // account; CO bank_code, account_number, document_number; GB sort_code, account_number; IN
  // account_number; MX clabe; NG bank_code, account_number; PH account_number; US routing, account.
  EXPECT_EQ(fields, 21);
}

TEST(UnassignedIdentifiers, PixKeysOfZerosAndTheNilUuidAreRefused) {
  const auto* pix = find_payout_method("BR", "pix");
  ASSERT_NE(pix, nullptr);
  for (const auto* key :
       {"00000000000", "00000000000000", "00000000-0000-0000-0000-000000000000"}) {
    expect_refused(validate_with(*pix, "pix_key", key), "beneficiary.account.pix_key", key);
  }
  EXPECT_TRUE(validate_with(*pix, "pix_key", "123e4567-e89b-42d3-a456-426614174000").ok());
}

TEST(UnassignedIdentifiers, IbansOfEveryEuroCorridorWithZeroBankAreRefused) {
  for (const auto* country : {"DE", "FR", "ES"}) {
    const auto* method = find_payout_method(country, "iban");
    ASSERT_NE(method, nullptr);
    auto iban = std::string(method->fields[0].example);
    for (std::size_t at = 4; at < iban.size(); ++at) iban[at] = '0';
    for (int check = 0; check < 100; ++check) {
      iban[2] = static_cast<char>('0' + check / 10);
      iban[3] = static_cast<char>('0' + check % 10);
      expect_refused(validate_with(*method, "iban", iban), "beneficiary.account.iban", iban);
    }
  }
}

}  // namespace
}  // namespace payrail::model
