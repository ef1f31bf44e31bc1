WITH __rows AS (
  SELECT m."user_id" AS unit, CAST(m."timestamp" AS DATE) AS day, CASE WHEN (event_type = 'purchase') THEN CAST(m."amount" AS DOUBLE) END AS n, CASE WHEN TRUE THEN 1 END AS d
  FROM (
SELECT user_id, timestamp, event_type, amount FROM events.orders
  ) m
  WHERE m."timestamp" >= from_iso8601_timestamp('2026-11-01T00:00:00.000Z') AND m."timestamp" < from_iso8601_timestamp('2026-11-07T23:59:59.999Z')
),
__unit_days AS (
  SELECT unit, day, COALESCE(SUM(n), 0) AS n, COALESCE(SUM(d), 0) AS d
  FROM __rows GROUP BY unit, day
),
__units AS (
  SELECT unit, COALESCE(SUM(n), 0) AS n, COALESCE(SUM(d), 0) AS d
  FROM __rows GROUP BY unit
)
SELECT CAST(day AS VARCHAR) AS day, COUNT(*) AS units, SUM(n) AS n_sum, SUM(n * n) AS n_sum_squares, SUM(d) AS d_sum, SUM(d * d) AS d_sum_squares, SUM(n * d) AS nd_sum FROM __unit_days GROUP BY day
UNION ALL
SELECT NULL AS day, COUNT(*) AS units, SUM(n) AS n_sum, SUM(n * n) AS n_sum_squares, SUM(d) AS d_sum, SUM(d * d) AS d_sum_squares, SUM(n * d) AS nd_sum FROM __units