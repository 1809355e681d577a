#include "schemas/model/money/rates.h"

#include <array>
#include <stdexcept>

namespace payrail::model {
namespace {

constexpr std::array kReferenceRates{
    ReferenceRate{"USD", "1", Quote::units_per_usd},
    ReferenceRate{"ARS", "1455", Quote::units_per_usd},
    ReferenceRate{"BRL", "5.35", Quote::units_per_usd},
    ReferenceRate{"CAD", "1.40", Quote::units_per_usd},
    ReferenceRate{"COP", "3870", Quote::units_per_usd},
    ReferenceRate{"EUR", "1.16", Quote::usd_per_unit},
    ReferenceRate{"GBP", "1.315", Quote::usd_per_unit},
    ReferenceRate{"INR", "88.60", Quote::units_per_usd},
    ReferenceRate{"MXN", "18.45", Quote::units_per_usd},
    ReferenceRate{"NGN", "1460", Quote::units_per_usd},
    ReferenceRate{"PHP", "58.90", Quote::units_per_usd},
    ReferenceRate{"USDC", "1", Quote::usd_per_unit},
    ReferenceRate{"USDT", "1", Quote::usd_per_unit},
    ReferenceRate{"ETH", "3000", Quote::usd_per_unit},
};

const ReferenceRate* find(std::string_view code) {
  for (const auto& entry : kReferenceRates) {
    if (entry.code == code) return &entry;
  }
  return nullptr;
}

// The USD value of one unit as the fraction numerator / denominator.
struct UsdValue {
  Decimal numerator;
  Decimal denominator;
};

UsdValue usd_value(const ReferenceRate& entry) {
  const Decimal one{1, 0};
  const Decimal mid = *parse_decimal(entry.mid);
  if (entry.quote == Quote::usd_per_unit) return {mid, one};
  return {one, mid};
}

// (n_from / d_from) / (n_to / d_to), rounded once.
Decimal cross(const ReferenceRate& from, const ReferenceRate& to) {
  const auto a = usd_value(from);
  const auto b = usd_value(to);
  return trim_zeros(divide(multiply(a.numerator, b.denominator),
                           multiply(a.denominator, b.numerator), kRateScale, Rounding::half_up));
}

}  // namespace

std::span<const ReferenceRate> reference_rates() {
  return kReferenceRates;
}

bool has_reference_rate(std::string_view code) {
  return find(code) != nullptr;
}

std::optional<ExchangeRate> reference_rate(std::string_view from, std::string_view to) {
  const auto* source = find(from);
  const auto* target = find(to);
  if (source == nullptr || target == nullptr) return std::nullopt;
  return ExchangeRate{std::string(from), std::string(to), cross(*source, *target),
                      cross(*target, *source), std::string(kReferenceRatesAsOf)};
}

Decimal usdc_needed(const Decimal& amount, const ExchangeRate& usdc_to_currency) {
  if (usdc_to_currency.from != "USDC") {
    throw std::invalid_argument("usdc_needed takes a USDC -> currency rate");
  }
  return divide(amount, usdc_to_currency.rate, kUsdcScale, Rounding::up);
}

Decimal usdc_credited(const Decimal& amount, const ExchangeRate& currency_to_usdc) {
  if (currency_to_usdc.to != "USDC") {
    throw std::invalid_argument("usdc_credited takes a currency -> USDC rate");
  }
  return round_to_scale(multiply(amount, currency_to_usdc.rate), kUsdcScale, Rounding::down);
}

}  // namespace payrail::model
