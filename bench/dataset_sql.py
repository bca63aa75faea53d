"""The statements that write calls, transcripts and ledger rows in bulk (bench/dataset.py), PostgreSQL only.

Parameters: ``users`` (the heavy accounts' ids), ``count`` (rows per account), ``start`` (the
first row's time; one row every five minutes after it), and the constants of the caller.
Ids are the prefix and 24 hex digits of an md5 of the account and row number: valid ids
(hex is base62), the same in every build, and the ledger's call rows name real calls.
"""

CALLS_SQL = """
INSERT INTO {table} ({columns})
SELECT 'call_' || substr(md5('call:' || u.id || ':' || g.n), 1, 24), u.id, true,
       %(start)s::timestamptz + g.n * interval '5 minutes' - interval '3 minutes',
       CASE WHEN mod(g.n, 3) = 0 THEN 'inbound' ELSE 'outbound' END,
       CASE mod(g.n, 20) WHEN 0 THEN 'no_answer' WHEN 1 THEN 'busy' WHEN 2 THEN 'canceled' WHEN 3 THEN 'failed'
            ELSE 'completed' END,
       CASE WHEN mod(g.n, 3) = 0 THEN coalesce(m.number, s.number) ELSE %(caller_id)s END,
       CASE WHEN mod(g.n, 3) = 0 THEN %(own_number)s ELSE coalesce(m.number, s.number) END,
       'US', coalesce(m.id, ''),
       CASE WHEN mod(g.n, 20) > 3 THEN %(start)s::timestamptz + g.n * interval '5 minutes'
            - interval '3 minutes' + interval '10 seconds' END,
       %(start)s::timestamptz + g.n * interval '5 minutes' - interval '3 minutes' + interval '10 seconds'
            + CASE WHEN mod(g.n, 20) > 3 THEN (5 + mod(g.n * 37, 1200)) * interval '1 second' ELSE interval '0' END,
       CASE WHEN mod(g.n, 20) > 3 THEN 5 + mod(g.n * 37, 1200) ELSE 0 END,
       CASE WHEN mod(g.n, 3) = 0 THEN 0 ELSE 1.09 END, 60, 60, %(currency)s
FROM unnest(%(users)s::text[]) AS u(id)
CROSS JOIN generate_series(1, %(count)s) AS g(n)
CROSS JOIN LATERAL (SELECT '+1' || (%(areas)s::text[])[1 + mod(g.n, 10)] || (200 + mod(g.n * 7, 800))::text
                    || lpad((mod(g.n * 7919, 10000))::text, 4, '0') AS number) AS s
LEFT JOIN bench_contact_map AS m ON m.user_id = u.id AND m.k = mod(g.n * 7919, %(contacts)s) AND mod(g.n, 10) < 7
"""

TRANSCRIPTS_SQL = """
INSERT INTO {table} ({columns})
SELECT 'trs_' || substr(md5('trs:' || c.id), 1, 24), c.id, true, c.ended_at + interval '1 minute',
       'The caller confirmed the appointment for Thursday at 3:30 pm and will send the documents by email.',
       '["Add Thursday 3:30 pm to the calendar"]'::jsonb, '["APPT-7741"]'::jsonb, 'en'
FROM {calls} AS c
WHERE c.user_id = ANY(%(users)s::text[]) AND c.status = 'completed' AND c.duration >= 45
  AND substr(c.id, 6, 1) IN ('0', '1')
"""

LEDGER_SQL = """
INSERT INTO {table} ({columns})
SELECT id, user_id, true, created, amount, %(currency)s, type, source, description,
       sum(amount) OVER (PARTITION BY user_id ORDER BY n)
FROM (
    SELECT 'txn_' || substr(md5('txn:' || u.id || ':' || g.n), 1, 24) AS id, u.id AS user_id, g.n,
           %(start)s::timestamptz + g.n * interval '5 minutes' AS created,
           CASE WHEN mod(g.n, 10) = 1 THEN 4500 WHEN mod(g.n, 50) = 7 THEN -115 WHEN mod(g.n, 10) = 3 THEN -5
                ELSE -(100 + mod(g.n * 37, 900)) END AS amount,
           CASE WHEN mod(g.n, 10) = 1 THEN 'top_up' WHEN mod(g.n, 50) = 7 THEN 'number_rental'
                WHEN mod(g.n, 10) = 3 THEN 'transcript' ELSE 'call' END AS type,
           CASE WHEN mod(g.n, 10) = 1 OR mod(g.n, 50) = 7 THEN ''
                ELSE 'call_' || substr(md5('call:' || u.id || ':' || g.n), 1, 24) END AS source,
           CASE WHEN mod(g.n, 10) = 1 THEN 'Top-up' WHEN mod(g.n, 50) = 7 THEN 'Number rental: +1 415 555 0199'
                WHEN mod(g.n, 10) = 3 THEN 'Call summary'
                ELSE 'Call to +1 212 200 ' || lpad(mod(g.n, 10000)::text, 4, '0') END AS description
    FROM unnest(%(users)s::text[]) AS u(id) CROSS JOIN generate_series(1, %(count)s) AS g(n)
) AS rows
"""

BALANCES_SQL = """
INSERT INTO {table} ({columns})
SELECT DISTINCT ON (user_id) user_id, true, ending_balance, currency, created
FROM {ledger} WHERE user_id = ANY(%(users)s::text[]) ORDER BY user_id, created DESC, id DESC
"""

# Every row whose ending balance is not the previous row's plus its amount (none), and every
# balance that is not its ledger's last ending balance (none).
CHECK_SQL = """
SELECT count(*) FROM (
    SELECT ending_balance - amount
           - coalesce(lag(ending_balance) OVER (PARTITION BY user_id ORDER BY created, id), 0) AS gap
    FROM {ledger} WHERE user_id = ANY(%(users)s::text[])
) AS chain WHERE gap <> 0
UNION ALL
SELECT count(*) FROM {balances} AS b
WHERE b.user_id = ANY(%(users)s::text[]) AND b.amount <> (
    SELECT t.ending_balance FROM {ledger} AS t WHERE t.user_id = b.user_id AND t.livemode = b.livemode
    ORDER BY t.created DESC, t.id DESC LIMIT 1)
"""
