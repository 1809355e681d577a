// Check digits against published test vectors (each vector's source is named next to it), and
// single-digit changes refused. Schemes whose weights are all invertible (CLABE, CBU, NUBAN, ABA,
// IBAN mod 97, CUIT) catch every single-digit change, so every position is changed to every other
// digit. The Brazilian mod-11 digits map remainders 0 and 1 to the same digit and NIT maps 1 and
// 10 to 1, so a few data-digit changes yield another valid number there (shown below); every
// change of their check digits is still refused.
#include "schemas/model/fiat_payouts/account_checks.h"

#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

namespace payrail::model::account_checks {
namespace {

using Check = std::function<bool(std::string_view)>;

// Every variant of `number` with the digit at `position` replaced by another digit.
std::vector<std::string> digit_changes(const std::string& number, std::size_t position) {
  std::vector<std::string> changed;
  for (char digit = '0'; digit <= '9'; ++digit) {
    if (digit == number[position]) continue;
    auto variant = number;
    variant[position] = digit;
    changed.push_back(variant);
  }
  return changed;
}

void expect_every_digit_change_refused(const Check& valid, const std::string& number) {
  ASSERT_TRUE(valid(number)) << number;
  for (std::size_t position = 0; position < number.size(); ++position) {
    if (number[position] < '0' || number[position] > '9') continue;
    for (const auto& variant : digit_changes(number, position)) {
      EXPECT_FALSE(valid(variant)) << number << " changed at " << position << ": " << variant;
    }
  }
}

void expect_check_digit_changes_refused(const Check& valid, const std::string& number,
                                        std::vector<std::size_t> check_positions) {
  ASSERT_TRUE(valid(number)) << number;
  for (const auto position : check_positions) {
    for (const auto& variant : digit_changes(number, position)) {
      EXPECT_FALSE(valid(variant)) << number << " check digit " << position << ": " << variant;
    }
  }
}

void expect_malformed_refused(const Check& valid, const std::string& number) {
  EXPECT_FALSE(valid(""));
  EXPECT_FALSE(valid(number.substr(1))) << "one digit short";
  EXPECT_FALSE(valid(number + "0")) << "one digit long";
  auto lettered = number;
  lettered[1] = 'A';
  EXPECT_FALSE(valid(lettered));
  EXPECT_FALSE(valid(" " + number));
}

TEST(AccountChecksClabe, PublishedVectorsAndEveryChange) {
  // Wikipedia, "CLABE", check digit example: 032 180 00011835971 9.
  // center-key/clabe-validator README example: 002010077777777771 (Banamex).
  for (const std::string clabe : {"032180000118359719", "002010077777777771"}) {
    expect_every_digit_change_refused(clabe_valid, clabe);
    expect_malformed_refused(clabe_valid, clabe);
  }
}

TEST(AccountChecksCpf, PublishedVectors) {
  // python-stdnum stdnum/br/cpf.py doctests: 390.533.447-05 valid, 231.002.999-00 invalid.
  EXPECT_TRUE(cpf_valid("39053344705"));
  EXPECT_FALSE(cpf_valid("23100299900"));
  expect_check_digit_changes_refused(cpf_valid, "39053344705", {9, 10});
  expect_malformed_refused(cpf_valid, "39053344705");
  // Data-digit changes: refused, except where remainders 0 and 1 collide (see the header).
  EXPECT_FALSE(cpf_valid("39053344715"));
  EXPECT_FALSE(cpf_valid("39153344705"));
  EXPECT_TRUE(cpf_valid("49053344705"));  // a different, valid CPF: the known collision
  // Repeated digits pass the arithmetic but are not issued; the Receita refuses them.
  EXPECT_FALSE(cpf_valid("11111111111"));
  EXPECT_FALSE(cpf_valid("00000000000"));
}

TEST(AccountChecksCnpj, PublishedVectorsAndEveryChange) {
  // python-stdnum stdnum/br/cnpj.py doctests: 16.727.230/0001-97 valid, ...0001-98 invalid.
  EXPECT_FALSE(cnpj_valid("16727230000198"));
  expect_every_digit_change_refused(cnpj_valid, "16727230000197");
  expect_malformed_refused(cnpj_valid, "16727230000197");
  EXPECT_FALSE(cnpj_valid("11111111111111"));
}

TEST(AccountChecksCbu, PublishedVectorsAndEveryChange) {
  // python-stdnum stdnum/ar/cbu.py doctests: 2850590940090418135201 valid,
  // 2810590940090418135201 invalid.
  EXPECT_FALSE(cbu_valid("2810590940090418135201"));
  expect_every_digit_change_refused(cbu_valid, "2850590940090418135201");
  expect_malformed_refused(cbu_valid, "2850590940090418135201");
}

TEST(AccountChecksCuit, PublishedVectorsAndEveryChange) {
  // python-stdnum stdnum/ar/cuit.py doctests: 20-05536168-2 and 20-26756539-3 valid,
  // 20267565392 invalid.
  EXPECT_FALSE(cuit_valid("20267565392"));
  for (const std::string cuit : {"20055361682", "20267565393"}) {
    expect_every_digit_change_refused(cuit_valid, cuit);
    expect_malformed_refused(cuit_valid, cuit);
  }
}

TEST(AccountChecksNuban, CbnWorkedExampleAndEveryChange) {
  // CBN NUBAN proposal (2010) worked example: bank 011 (First Bank), serial 000001457, check
  // digit 9. The revised standard (2020) pads 3-digit codes to 6 with "000": same result.
  const auto with_first_bank = [](std::string_view account) { return nuban_valid(account, "011"); };
  expect_every_digit_change_refused(with_first_bank, "0000014579");
  expect_malformed_refused(with_first_bank, "0000014579");
  EXPECT_TRUE(nuban_valid("0000014579", "000011"));
  // The bank code takes part in the check: another bank refuses the same number.
  EXPECT_FALSE(nuban_valid("0000014579", "058"));
  for (const auto* code : {"", "01", "0110", "0A1", "0000110"}) {
    EXPECT_FALSE(nuban_valid("0000014579", code)) << code;
  }
}

TEST(AccountChecksIban, RegistryExamplesAndEveryChange) {
  // SWIFT IBAN Registry examples (Germany, France, Spain, United Kingdom).
  for (const std::string iban : {"DE89370400440532013000", "FR1420041010050500013M02606",
                                 "ES9121000418450200051332", "GB29NWBK60161331926819"}) {
    expect_every_digit_change_refused(iban_valid, iban);
    EXPECT_FALSE(iban_valid(iban.substr(0, iban.size() - 1)));
  }
  EXPECT_FALSE(iban_valid("de89370400440532013000"));  // canonical form is upper case
  EXPECT_FALSE(iban_valid("DE89 3704 0044 0532 0130 00"));
  EXPECT_FALSE(iban_valid("DE8937040044053201300"));
  EXPECT_FALSE(iban_valid(""));
}

TEST(AccountChecksAba, PublishedVectorsAndEveryChange) {
  // python-stdnum stdnum/us/rtn.py doctests: 111000025 valid, 112000025 invalid. 021000021 is
  // JPMorgan Chase's routing number as published by the Federal Reserve E-Payments directory.
  EXPECT_FALSE(aba_routing_valid("112000025"));
  for (const std::string routing : {"111000025", "021000021"}) {
    expect_every_digit_change_refused(aba_routing_valid, routing);
    expect_malformed_refused(aba_routing_valid, routing);
  }
}

TEST(AccountChecksNit, PublishedVectors) {
  // python-stdnum stdnum/co/nit.py doctests: 213.123.432-1 and 2131234351 valid, 2131234350
  // invalid. DIAN's own NIT, 800.197.268-4, as printed on its documents.
  EXPECT_FALSE(nit_valid("2131234350"));
  for (const std::string nit : {"2131234321", "2131234351", "8001972684"}) {
    expect_check_digit_changes_refused(nit_valid, nit, {9});
    expect_malformed_refused(nit_valid, nit);
  }
  expect_every_digit_change_refused(nit_valid, "8001972684");
}

}  // namespace
}  // namespace payrail::model::account_checks
