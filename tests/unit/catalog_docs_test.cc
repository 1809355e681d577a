// docs/catalog.md shows the corridor table, the account fields and the reference rates for
// people; these tests hold those tables to the code (schemas/model/fiat_payouts/corridors.h,
// rates.h), so the page cannot drift from what the server does. On a mismatch the test prints the
// rows the page must contain.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "schemas/model/common/source_tree.h"
#include "schemas/model/fiat_payouts/corridors.h"
#include "schemas/model/money/rates.h"

namespace payrail::model {
namespace {

std::string read_catalog_page() {
  std::ifstream file(std::string(source_directory()) + "/docs/catalog.md");
  std::stringstream content;
  content << file.rdbuf();
  return content.str();
}

std::string settlement(int minutes) {
  if (minutes % (24 * 60) == 0) return std::to_string(minutes / (24 * 60)) + " d";
  if (minutes % 60 == 0) return std::to_string(minutes / 60) + " h";
  return std::to_string(minutes) + " min";
}

// A table cell: pipes escaped, as GitHub-flavoured Markdown needs even inside code spans.
std::string cell(std::string_view text) {
  std::string escaped;
  for (const char c : text) {
    if (c == '|') escaped += '\\';
    escaped += c;
  }
  return escaped;
}

std::string_view check_name(FieldCheck check) {
  switch (check) {
    case FieldCheck::pattern_only:
      return "format";
    case FieldCheck::clabe:
      return "CLABE check digit";
    case FieldCheck::cpf_or_cnpj:
      return "CPF or CNPJ check digits";
    case FieldCheck::pix_key:
      return "CPF/CNPJ check digits; e-mail at most 77";
    case FieldCheck::cbu:
      return "CBU check digits";
    case FieldCheck::cuit:
      return "CUIT check digit";
    case FieldCheck::nuban:
      return "NUBAN check digit with bank_code";
    case FieldCheck::iban:
      return "IBAN mod 97";
    case FieldCheck::aba_routing:
      return "ABA checksum";
    case FieldCheck::co_document:
      return "NIT check digit when document_type is NIT";
  }
  return "";
}

std::vector<std::string> method_rows() {
  std::vector<std::string> rows;
  for (const auto& method : payment_methods()) {
    std::string fields;
    for (const auto& field : method.fields) {
      fields += (fields.empty() ? "`" : ", `") + std::string(field.name) + "`";
    }
    rows.push_back("| " + std::string(method.country) + " | " + std::string(method.currency) +
                   " | " + std::string(direction_name(method.direction)) + " | `" +
                   std::string(method.type) + "` | " + std::string(method.summary) + " | " +
                   (fields.empty() ? "none" : fields) + " | " +
                   settlement(method.typical_settlement_minutes) + " |");
  }
  return rows;
}

std::vector<std::string> field_rows() {
  std::vector<std::string> rows;
  for (const auto& method : payment_methods()) {
    for (const auto& field : method.fields) {
      rows.push_back("| " + std::string(method.country) + " `" + std::string(method.type) +
                     "` | `" + std::string(field.name) + "` | `" + cell(field.pattern) + "` | " +
                     std::string(check_name(field.check)) + " | " +
                     (field.identifier ? "yes" : "no") + " | `" + std::string(field.example) +
                     "` |");
    }
  }
  return rows;
}

std::vector<std::string> rate_rows() {
  std::vector<std::string> rows;
  for (const auto& rate : reference_rates()) {
    const auto code = std::string(rate.code);
    rows.push_back("| " + code + " | " + std::string(rate.mid) + " | " +
                   (rate.quote == Quote::units_per_usd ? code + " per USD" : "USD per " + code) +
                   " |");
  }
  return rows;
}

void expect_rows_in_page(const std::vector<std::string>& rows) {
  const auto page = read_catalog_page();
  ASSERT_FALSE(page.empty()) << "docs/catalog.md is missing";
  std::string all;
  bool missing = false;
  for (const auto& row : rows) {
    all += row + "\n";
    if (page.find(row + "\n") == std::string::npos) {
      ADD_FAILURE() << "docs/catalog.md lacks the row: " << row;
      missing = true;
    }
  }
  if (missing) ADD_FAILURE() << "The table must read:\n" << all;
}

TEST(CatalogDocs, ListEveryMethod) {
  expect_rows_in_page(method_rows());
}

TEST(CatalogDocs, ListEveryAccountField) {
  expect_rows_in_page(field_rows());
}

TEST(CatalogDocs, ListEveryReferenceRateAndItsDate) {
  expect_rows_in_page(rate_rows());
  EXPECT_NE(read_catalog_page().find("`as_of` " + std::string(kReferenceRatesAsOf)),
            std::string::npos);
}

}  // namespace
}  // namespace payrail::model
