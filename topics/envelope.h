// The message envelope shared by every topic (schemas/messages/envelope.schema.json):
//   {"message_id": "msg_...", "type": "payout.requested", "org_id": "org_...",
//    "mode": "test", "resource_id": "po_...", "created_at": "2026-11-21T10:00:00Z"}
// The message id is the outbox row's id, so a consumer can record that it applied it.
#pragma once

#include <string>
#include <string_view>

#include "schemas/model/common/mode.h"
#include "schemas/model/common/result.h"

namespace payrail::topics {

struct Envelope {
  std::string message_id;
  std::string type;
  std::string org_id;
  model::Mode mode = model::Mode::test;
  std::string resource_id;
  std::string created_at;
};

std::string encode(const Envelope& envelope);
// Rejects anything that is not exactly an envelope (unknown fields, wrong types, over 4 KiB).
model::Result<Envelope> decode(std::string_view bytes);

}  // namespace payrail::topics
