// Check digits of bank account numbers and tax identifiers: the arithmetic only, on the canonical
// form (digits and capital letters, no separators). Each function also checks the length and
// the alphabet, so it is safe on any input; which field uses which check, and the patterns the
// API publishes, are in the corridor table (schemas/model/fiat_payouts/corridors.h).
//
// Where each algorithm is defined (the unit tests cite a published vector for each):
//   CLABE (Mexico, 18 digits)   Banxico/ABM: weights 3,7,1 repeated over the first 17 digits,
//                               each product mod 10, check = (10 - sum mod 10) mod 10.
//   CPF (Brazil, 11 digits)     Receita Federal: two mod-11 digits, weights 10..2 then 11..2;
//                               a remainder below 2 gives 0. All-equal digits are refused.
//   CNPJ (Brazil, 14 digits)    Receita Federal: two mod-11 digits, weights 5..2,9..2 then
//                               6..2,9..2; all-equal digits are refused.
//   CBU (Argentina, 22 digits)  BCRA: block 1 (bank 3 + branch 4 + check) weights 7,1,3,9,7,1,3;
//                               block 2 (13 digits + check) weights 3,9,7,1,3,9,7,1,3,9,7,1,3;
//                               check = (10 - sum mod 10) mod 10 for each block.
//   CUIT (Argentina, 11 digits) AFIP: weights 5,4,3,2,7,6,5,4,3,2, check = 11 - sum mod 11
//                               (11 -> 0); a result of 10 has no valid check digit (AFIP
//                               issues such numbers under another prefix).
//   NUBAN (Nigeria, 10 digits)  CBN: 9-digit serial + check over the 6-digit institution code
//                               (a 3-digit bank code is padded "000") and the serial, weights
//                               3,7,3 repeated, check = (10 - sum mod 10) mod 10.
//   IBAN (ISO 13616)            move the first four characters to the end, letters A=10..Z=35,
//                               the number mod 97 must be 1. The per-country length and BBAN
//                               format are the corridor table's patterns.
//   ABA routing (US, 9 digits)  ABA: 3(d1+d4+d7) + 7(d2+d5+d8) + (d3+d6+d9) is 0 mod 10.
//   NIT (Colombia, 10 digits)   DIAN: 9 digits + check, weights 3,7,13,17,19,23,29,37,41 from the
//                               right, r = sum mod 11, check = r when r < 2, else 11 - r.
//
// Numbers the issuer never assigns are refused even when their check digits hold (all zeros
// passes every weighted-sum check above): a part of the number that names an institution or
// serially numbers an account or a person is never zero. Which part is which is the scheme's
// published layout, named at each function in account_checks.cc; no other rule is assumed.
#pragma once

#include <string_view>

namespace payrail::model::account_checks {

bool is_digits(std::string_view text);
// Only '0' characters (and at least one).
bool is_all_zeros(std::string_view text);

bool clabe_valid(std::string_view clabe);
bool cpf_valid(std::string_view cpf);
bool cnpj_valid(std::string_view cnpj);
bool cbu_valid(std::string_view cbu);
bool cuit_valid(std::string_view cuit);
// `bank_code`: 3 digits (a deposit money bank, padded with "000") or 6 digits (the CBN
// institution code of any bank or other financial institution).
bool nuban_valid(std::string_view account_number, std::string_view bank_code);
// Any country: 2 letters, 2 check digits, 11 to 30 letters or digits, and mod 97 == 1.
bool iban_valid(std::string_view iban);
bool aba_routing_valid(std::string_view routing_number);
bool nit_valid(std::string_view nit);

}  // namespace payrail::model::account_checks
