#include "schemas/model/fiat_payouts/account_checks.h"

#include <algorithm>
#include <array>
#include <span>
#include <string>

namespace payrail::model::account_checks {
namespace {

int digit(char c) {
  return c - '0';
}

bool digits_of_length(std::string_view text, std::size_t length) {
  return text.size() == length && is_digits(text);
}

bool all_equal(std::string_view text) {
  return std::all_of(text.begin(), text.end(), [&](char c) { return c == text.front(); });
}

// Sum of digit * weight over `digits` (weights aligned from the left).
int weighted_sum(std::string_view digits, std::span<const int> weights) {
  int sum = 0;
  for (std::size_t i = 0; i < digits.size() && i < weights.size(); ++i) {
    sum += digit(digits[i]) * weights[i];
  }
  return sum;
}

// The Brazilian mod-11 digit: remainder below 2 -> 0, else 11 - remainder.
char brazil_check_digit(std::string_view digits, std::span<const int> weights) {
  const int remainder = weighted_sum(digits, weights) % 11;
  return static_cast<char>('0' + (remainder < 2 ? 0 : 11 - remainder));
}

char mod10_complement(int sum) {
  return static_cast<char>('0' + (10 - sum % 10) % 10);
}

bool is_upper_alnum(char c) {
  return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z');
}

}  // namespace

bool is_digits(std::string_view text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

bool is_all_zeros(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c == '0'; });
}

// CLABE layout (Banxico/ABM): bank code (3, Banxico's institution catalogue, which has no 000),
// plaza (3), account number (11), check digit.
bool clabe_valid(std::string_view clabe) {
  if (!digits_of_length(clabe, 18)) return false;
  if (is_all_zeros(clabe.substr(0, 3)) || is_all_zeros(clabe.substr(6, 11))) return false;
  constexpr std::array kWeights{3, 7, 1};
  int sum = 0;
  for (std::size_t i = 0; i < 17; ++i) sum += (digit(clabe[i]) * kWeights[i % 3]) % 10;
  return clabe[17] == mod10_complement(sum);
}

bool cpf_valid(std::string_view cpf) {
  if (!digits_of_length(cpf, 11) || all_equal(cpf)) return false;
  constexpr std::array kFirst{10, 9, 8, 7, 6, 5, 4, 3, 2};
  constexpr std::array kSecond{11, 10, 9, 8, 7, 6, 5, 4, 3, 2};
  return cpf[9] == brazil_check_digit(cpf.substr(0, 9), kFirst) &&
         cpf[10] == brazil_check_digit(cpf.substr(0, 10), kSecond);
}

bool cnpj_valid(std::string_view cnpj) {
  if (!digits_of_length(cnpj, 14) || all_equal(cnpj)) return false;
  constexpr std::array kFirst{5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
  constexpr std::array kSecond{6, 5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2};
  return cnpj[12] == brazil_check_digit(cnpj.substr(0, 12), kFirst) &&
         cnpj[13] == brazil_check_digit(cnpj.substr(0, 13), kSecond);
}

// CBU layout (BCRA): bank code (3) + branch (4) + check, account number (13) + check. BCRA
// assigns no bank code 000, and no account is numbered 0.
bool cbu_valid(std::string_view cbu) {
  if (!digits_of_length(cbu, 22)) return false;
  if (is_all_zeros(cbu.substr(0, 3)) || is_all_zeros(cbu.substr(8, 13))) return false;
  constexpr std::array kFirstBlock{7, 1, 3, 9, 7, 1, 3};
  constexpr std::array kSecondBlock{3, 9, 7, 1, 3, 9, 7, 1, 3, 9, 7, 1, 3};
  return cbu[7] == mod10_complement(weighted_sum(cbu.substr(0, 7), kFirstBlock)) &&
         cbu[21] == mod10_complement(weighted_sum(cbu.substr(8, 13), kSecondBlock));
}

// CUIT layout (AFIP): type (2 digits: 20, 23, 24, 27 persons, 30, 33, 34 companies), the person's
// DNI or the company's AFIP number (8), check digit. Neither the type nor the number is ever 0
// (only that is enforced: the list of types is not published as closed).
bool cuit_valid(std::string_view cuit) {
  if (!digits_of_length(cuit, 11)) return false;
  if (is_all_zeros(cuit.substr(0, 2)) || is_all_zeros(cuit.substr(2, 8))) return false;
  constexpr std::array kWeights{5, 4, 3, 2, 7, 6, 5, 4, 3, 2};
  const int check = 11 - weighted_sum(cuit.substr(0, 10), kWeights) % 11;
  if (check == 10) return false;
  return digit(cuit[10]) == (check == 11 ? 0 : check);
}

bool nuban_valid(std::string_view account_number, std::string_view bank_code) {
  if (!digits_of_length(account_number, 10)) return false;
  std::string institution;
  if (digits_of_length(bank_code, 3)) {
    institution = "000" + std::string(bank_code);
  } else if (digits_of_length(bank_code, 6)) {
    institution = std::string(bank_code);
  } else {
    return false;
  }
  // CBN NUBAN layout: the institution code names a licensed institution (never 000000) and the
  // 9-digit serial numbers its accounts from 1.
  if (is_all_zeros(institution) || is_all_zeros(account_number.substr(0, 9))) return false;
  constexpr std::array kWeights{3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3, 3, 7, 3};
  const auto payload = institution + std::string(account_number.substr(0, 9));
  return account_number[9] == mod10_complement(weighted_sum(payload, kWeights));
}

namespace {

// Where the bank identifier and the account number sit in the BBAN, from SWIFT's IBAN Registry:
// German Bankleitzahl (8) then Kontonummer (10); French code banque (5), code guichet (5),
// numéro de compte (11), clé RIB (2); Spanish entidad (4), oficina (4), control (2), cuenta (10).
// No central bank assigns an all-zero bank identifier, and no bank an all-zero account.
struct BbanLayout {
  std::string_view country;
  std::size_t bank_length;
  std::size_t account_offset;
  std::size_t account_length;
};
constexpr std::array kBbanLayouts{BbanLayout{"DE", 8, 8, 10}, BbanLayout{"FR", 5, 10, 11},
                                  BbanLayout{"ES", 4, 10, 10}};

bool bank_and_account_assigned(std::string_view iban) {
  const auto bban = iban.substr(4);
  if (is_all_zeros(bban)) return false;  // any country
  for (const auto& layout : kBbanLayouts) {
    if (!iban.starts_with(layout.country)) continue;
    if (bban.size() < layout.account_offset + layout.account_length) return false;
    return !is_all_zeros(bban.substr(0, layout.bank_length)) &&
           !is_all_zeros(bban.substr(layout.account_offset, layout.account_length));
  }
  return true;
}

}  // namespace

bool iban_valid(std::string_view iban) {
  if (iban.size() < 15 || iban.size() > 34) return false;
  if (!std::all_of(iban.begin(), iban.end(), is_upper_alnum)) return false;
  if (!(iban[0] >= 'A' && iban[0] <= 'Z' && iban[1] >= 'A' && iban[1] <= 'Z')) return false;
  if (!is_digits(iban.substr(2, 2))) return false;
  if (!bank_and_account_assigned(iban)) return false;
  // The remainder is carried digit by digit, so the number never needs more than an int.
  int remainder = 0;
  const auto rearranged = std::string(iban.substr(4)) + std::string(iban.substr(0, 4));
  for (const char c : rearranged) {
    if (c >= '0' && c <= '9') {
      remainder = (remainder * 10 + digit(c)) % 97;
    } else {
      remainder = (remainder * 100 + (c - 'A' + 10)) % 97;
    }
  }
  return remainder == 1;
}

namespace {

// The first two digits of a routing number are its Federal Reserve routing symbol, which the ABA
// Routing Number Policy limits to 00 (U.S. Government), 01-12 (the Federal Reserve districts),
// 21-32 (thrifts), 61-72 (electronic transactions) and 80 (traveler's checks). The number itself
// is never all zeros.
bool aba_prefix_assigned(std::string_view routing_number) {
  const int prefix = digit(routing_number[0]) * 10 + digit(routing_number[1]);
  return prefix <= 12 || (prefix >= 21 && prefix <= 32) || (prefix >= 61 && prefix <= 72) ||
         prefix == 80;
}

}  // namespace

bool aba_routing_valid(std::string_view routing_number) {
  if (!digits_of_length(routing_number, 9)) return false;
  if (is_all_zeros(routing_number) || !aba_prefix_assigned(routing_number)) return false;
  constexpr std::array kWeights{3, 7, 1, 3, 7, 1, 3, 7, 1};
  return weighted_sum(routing_number, kWeights) % 10 == 0;
}

// DIAN numbers taxpayers from 1: a NIT of zeros is never assigned.
bool nit_valid(std::string_view nit) {
  if (!digits_of_length(nit, 10) || is_all_zeros(nit.substr(0, 9))) return false;
  constexpr std::array kWeightsFromRight{3, 7, 13, 17, 19, 23, 29, 37, 41};
  int sum = 0;
  for (std::size_t i = 0; i < 9; ++i) sum += digit(nit[8 - i]) * kWeightsFromRight[i];
  const int remainder = sum % 11;
  return digit(nit[9]) == (remainder < 2 ? remainder : 11 - remainder);
}

}  // namespace payrail::model::account_checks
