-- pgbench script: the SQL of one POST /v1/payouts create transaction (infra/repositories/
-- payouts.cc create(): idempotency record, limits lookup, payout, transition log, hold with its
-- balanced journal entry, event, spend counters, two outbox rows), for a test-mode USDC payout
-- of one of the bench organizations (org_bench_0 .. org_bench_<orgs-1>), so that the API's
-- creates/s can be compared with what Postgres alone does for the same work.
\set n random(1, 1000000000000)
\set org random(0, :orgs - 1)
BEGIN;
INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, request_hash, resource_id)
  VALUES ('org_bench_' || :org, 'test', 'k' || :n || 'c' || :client_id, 'POST /v1/payouts',
          sha256(('h' || :n)::bytea), 'po_b' || :n || 'c' || :client_id)
  ON CONFLICT DO NOTHING RETURNING 1;
SELECT auto_approval_usd::text, per_payout_usd::text, daily_usd::text, monthly_usd::text
  FROM organization_limits WHERE org_id = 'org_bench_' || :org AND mode = 'test';
INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, metadata,
                     amount_usd, event_sequence)
  VALUES ('po_b' || :n || 'c' || :client_id, 'org_bench_' || :org, 'test', 'pending', 0.01,
          'USDC', 'polygon', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', NULL, 0.0100, 1)
  RETURNING id, org_id, mode, status, amount::text, currency, network, address, metadata,
            screening_status, screening_reasons, tx_hash, failure_reason,
            to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
            amount_usd::text, event_sequence;
INSERT INTO payout_transitions (payout_id, from_status, to_status, trigger)
  VALUES ('po_b' || :n || 'c' || :client_id, NULL, 'pending', 'create');
INSERT INTO journal_entries (org_id, mode, asset, kind, resource_id)
  VALUES ('org_bench_' || :org, 'test', 'USDC', 'hold', 'po_b' || :n || 'c' || :client_id)
  ON CONFLICT DO NOTHING RETURNING id AS entry_id \gset
UPDATE balances SET available = available + -0.01, held = held + 0.01, updated_at = now()
  WHERE org_id = 'org_bench_' || :org AND mode = 'test' AND asset = 'USDC'
    AND available + -0.01 >= 0 AND held + 0.01 >= 0 RETURNING 1;
INSERT INTO journal_postings (entry_id, account, amount)
  VALUES (:entry_id, 'available', -0.01), (:entry_id, 'held', 0.01);
INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, payload)
  VALUES ('evt_b' || :n || 'c' || :client_id, 'org_bench_' || :org, 'test', 'payout.created',
          'payout', 'po_b' || :n || 'c' || :client_id, 1,
          repeat('x', 600));
INSERT INTO outbox (message_id, topic, message_key, payload)
  VALUES ('msg_e' || :n || 'c' || :client_id, 'events', 'evt_b' || :n, repeat('x', 180));
INSERT INTO spend_counters AS c (org_id, mode, period, period_start, amount_usd)
  VALUES ('org_bench_' || :org, 'test', 'day', (now() AT TIME ZONE 'UTC')::date, 0.01)
  ON CONFLICT (org_id, mode, period, period_start)
  DO UPDATE SET amount_usd = c.amount_usd + EXCLUDED.amount_usd
  WHERE c.amount_usd + EXCLUDED.amount_usd <= 1000000000 RETURNING 1;
INSERT INTO spend_counters AS c (org_id, mode, period, period_start, amount_usd)
  VALUES ('org_bench_' || :org, 'test', 'month',
          date_trunc('month', now() AT TIME ZONE 'UTC')::date, 0.01)
  ON CONFLICT (org_id, mode, period, period_start)
  DO UPDATE SET amount_usd = c.amount_usd + EXCLUDED.amount_usd
  WHERE c.amount_usd + EXCLUDED.amount_usd <= 1000000000 RETURNING 1;
INSERT INTO outbox (message_id, topic, message_key, payload)
  VALUES ('msg_r' || :n || 'c' || :client_id, 'payouts.requested',
          'po_b' || :n || 'c' || :client_id, repeat('x', 180));
COMMIT;
