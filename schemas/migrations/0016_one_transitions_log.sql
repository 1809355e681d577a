-- One transitions log for every resource (docs/architecture.md "The lifecycle"): payouts kept
-- their own log (payout_transitions) while fiat payouts, collections, KYB submissions and
-- organizations logged into resource_transitions. The payouts' rows are folded into the one log,
-- oldest first and each with its own time, so a payout's history reads the same from its new
-- place; a member's decision (approve, reject) now names the member, as the other resources'
-- do. The old table goes: nothing writes it any more.
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger,
                                  actor, occurred_at)
SELECT 'payout', t.payout_id, t.from_status, t.to_status, t.trigger,
       CASE WHEN t.trigger IN ('approve', 'reject') THEN p.approved_by END, t.occurred_at
FROM payout_transitions t JOIN payouts p ON p.id = t.payout_id
ORDER BY t.id;

DROP TABLE payout_transitions;
