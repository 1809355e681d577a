-- pgbench script: the SQL of one POST /v1/payouts create transaction (infra/store/payouts/
-- payouts.cc create(), in its order: idempotency record, limits lookup and payout in one
-- statement (claimed_create.h), requested outbox row, transition log, event (no `events` outbox
-- row: the bench organizations have no webhook endpoint), then the organization's hot rows last — the hold (its journal entry, postings and
-- balance in one statement), then both spend counters in one statement), for a test-mode USDC
-- payout of one of the bench organizations (org_bench_0 .. org_bench_<orgs-1>), so that the
-- API's creates/s can be compared with what Postgres alone does for the same work.
\set n random(1, 1000000000000)
\set org random(0, :orgs - 1)
BEGIN;
WITH claimed AS (
  INSERT INTO idempotency_keys (org_id, mode, idempotency_key, endpoint, request_hash, resource_id)
    VALUES ('org_bench_' || :org, 'test', 'k' || :n || 'c' || :client_id, 'POST /v1/payouts',
            sha256(('h' || :n)::bytea), 'po_b' || :n || 'c' || :client_id)
    ON CONFLICT DO NOTHING RETURNING 1),
created AS (
  INSERT INTO payouts (id, org_id, mode, status, amount, currency, network, address, metadata,
                       amount_usd, event_sequence)
    SELECT 'po_b' || :n || 'c' || :client_id, 'org_bench_' || :org, 'test', 'pending', 0.01,
           'USDC', 'polygon', '0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed', NULL, 0.0100, 1
    FROM claimed
    RETURNING id, org_id, mode, status, amount::text, currency, network, address, metadata,
              screening_status, screening_reasons, tx_hash, failure_reason,
              to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS"Z"'),
              amount_usd::text, event_sequence)
SELECT created.*, EXISTS (SELECT 1 FROM claimed), l.auto_approval_usd::text,
       l.per_payout_usd::text, l.daily_usd::text, l.monthly_usd::text
  FROM (VALUES (1)) AS one LEFT JOIN created ON true
  LEFT JOIN organization_limits l ON l.org_id = 'org_bench_' || :org AND l.mode = 'test';
INSERT INTO outbox (message_id, topic, message_key, payload, next_attempt_at)
  VALUES ('msg_r' || :n || 'c' || :client_id, 'payouts.requested',
          'po_b' || :n || 'c' || :client_id, repeat('x', 180), now() + interval '15 seconds');
INSERT INTO resource_transitions (resource_type, resource_id, from_status, to_status, trigger)
  VALUES ('payout', 'po_b' || :n || 'c' || :client_id, NULL, 'pending', 'create');
WITH organization AS (SELECT 1 FROM organizations WHERE id = 'org_bench_' || :org FOR KEY SHARE)
INSERT INTO events (id, org_id, mode, type, resource_type, resource_id, sequence, payload)
  SELECT 'evt_b' || :n || 'c' || :client_id, 'org_bench_' || :org, 'test', 'payout.created',
         'payout', 'po_b' || :n || 'c' || :client_id, 1, repeat('x', 600) FROM organization;
INSERT INTO outbox (message_id, topic, message_key, payload, next_attempt_at)
  SELECT 'msg_e' || :n || 'c' || :client_id, 'events', 'evt_b' || :n, repeat('x', 180),
         now() + interval '15 seconds'
  WHERE EXISTS (SELECT 1 FROM webhook_endpoints WHERE org_id = 'org_bench_' || :org
                AND mode = 'test' AND active AND deleted_at IS NULL
                AND 'payout.created' = ANY (events));
WITH entry AS (
  INSERT INTO journal_entries (org_id, mode, asset, kind, resource_id)
  VALUES ('org_bench_' || :org, 'test', 'USDC', 'hold', 'po_b' || :n || 'c' || :client_id)
  ON CONFLICT DO NOTHING RETURNING id),
postings AS (
  INSERT INTO journal_postings (entry_id, account, amount)
  SELECT entry.id, posting.account, posting.amount FROM entry,
    (VALUES ('available', -0.01), ('held', 0.01)) AS posting (account, amount)),
held AS (
  UPDATE balances SET available = available + -0.01, held = held + 0.01, updated_at = now()
  WHERE org_id = 'org_bench_' || :org AND mode = 'test' AND asset = 'USDC'
    AND available + -0.01 >= 0 AND held + 0.01 >= 0 AND EXISTS (SELECT 1 FROM entry)
  RETURNING 1)
SELECT EXISTS (SELECT 1 FROM entry), EXISTS (SELECT 1 FROM held);
INSERT INTO spend_counters AS c (org_id, mode, period, period_start, amount_usd)
  SELECT 'org_bench_' || :org, 'test', period.name, period.start, 0.01
  FROM (VALUES (1, 'day', (now() AT TIME ZONE 'UTC')::date),
               (2, 'month', date_trunc('month', now() AT TIME ZONE 'UTC')::date))
       AS period (position, name, start)
  ORDER BY period.position
  ON CONFLICT (org_id, mode, period, period_start)
  DO UPDATE SET amount_usd = c.amount_usd + EXCLUDED.amount_usd
  WHERE c.amount_usd + EXCLUDED.amount_usd
        <= CASE EXCLUDED.period WHEN 'day' THEN 1000000000 ELSE 1000000000 END
  RETURNING c.period;
COMMIT;
