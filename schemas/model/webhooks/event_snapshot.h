// The envelope every resource event shares (docs/webhooks.md): `event`, `event_id`,
// `occurred_at` and the per-resource `sequence`, then the resource's own members, flat. Written
// once so payouts, fiat payouts and collections cannot drift apart.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "schemas/model/common/json.h"

namespace payrail::model {

std::string event_snapshot_json(std::string_view event_type, std::string_view event_id,
                                std::string_view occurred_at, int sequence,
                                const std::function<void(json::Writer&)>& write_members);

}  // namespace payrail::model
