// The OpenAPI components generated from the corridor table (schemas/model/fiat_payouts/corridors.h)
// and the reference rates (schemas/model/money/rates.h), so that the description can never disagree
// with what the server validates. Assembled with the hand-written parts
// (schemas/model/contract/contracts.h) as one more fragment, {"components": {"schemas": {...}}}:
//
//   FiatAccount_<CC>_<type>   one per payout method: `type` (const) and the method's required
//                             fields with their descriptions, patterns and examples; no other
//                             member (additionalProperties false).
//   FiatAccount_<type>        oneOf the countries' variants, for a type several countries use
//                             (bank_account, iban).
//   FiatBeneficiaryAccount    oneOf every payout method, with a `type` discriminator: the schema
//                             of `beneficiary.account` in POST /v1/fiat-payouts.
//   PaymentMethodType         every method type, payouts and collections.
//   CatalogCountry            every country with a method (ISO 3166-1 alpha-2).
//   CatalogCurrency           every corridor currency (ISO 4217).
//   RateCode                  every code GET /v1/rates quotes.
#pragma once

#include <string>
#include <string_view>

namespace payrail::model {

// The schema name of one payout method ("FiatAccount_MX_clabe").
std::string fiat_account_schema_name(std::string_view country, std::string_view type);

// The fragment as compact JSON.
std::string catalog_openapi_fragment();

}  // namespace payrail::model
