-- query q0_ftb_orders
-- Fact table Orders (ftb_orders): rev_per_session, rev_per_session_cuped
WITH __exposures AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN COUNT(DISTINCT CAST(e."variation_id" AS VARCHAR)) > 1 THEN '__multiple__'
      ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure,
    'All' AS dimension
  FROM (
SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')
  ) e
  WHERE CAST(e."experiment_id" AS VARCHAR) = 'exp-key'
    AND e."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND e."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z')
  GROUP BY e."user_id"
),
__facts AS (
  SELECT
    f."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    CAST(f."amount" AS DOUBLE) AS m0_n,
    CAST(f."amount" AS DOUBLE) AS m1_n
  FROM (
SELECT user_id, timestamp, amount FROM read_csv('orders.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-04-24T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-18T00:00:00.000Z')
),
__units AS (
  SELECT
    x.unit_id,
    x.variation,
    x.dimension,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m0_n END), 0) AS m0_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m1_n END), 0) AS m1_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= date_add('minute', -10080, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m1_n END), 0) AS m1_n_pre
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation, x.dimension
),
__facts_d1 AS (
  SELECT
    f."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    1 AS m0_d,
    1 AS m1_d
  FROM (
SELECT user_id, timestamp FROM read_csv('sessions.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-04-24T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-18T00:00:00.000Z')
),
__units_d1 AS (
  SELECT
    x.unit_id,
    COUNT(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m0_d END) AS m0_d,
    COUNT(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m1_d END) AS m1_d,
    COUNT(CASE WHEN f."timestamp" >= date_add('minute', -10080, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m1_d END) AS m1_d_pre
  FROM __exposures x
  LEFT JOIN __facts_d1 f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id
),
__units_all AS (
  SELECT
    u.*,
    d1.m0_d,
    d1.m1_d,
    d1.m1_d_pre
  FROM __units u
  LEFT JOIN __units_d1 d1 ON d1.unit_id = u.unit_id
)
SELECT
  u.variation,
  u.dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares,
  SUM(CAST(u.m0_d AS DOUBLE)) AS m0_denominator_sum,
  SUM(POWER(CAST(u.m0_d AS DOUBLE), 2)) AS m0_denominator_sum_squares,
  SUM(CAST(u.m0_n AS DOUBLE) * CAST(u.m0_d AS DOUBLE)) AS m0_main_denominator_sum_product,
  SUM(CAST(u.m1_n AS DOUBLE)) AS m1_main_sum,
  SUM(POWER(CAST(u.m1_n AS DOUBLE), 2)) AS m1_main_sum_squares,
  SUM(CAST(u.m1_d AS DOUBLE)) AS m1_denominator_sum,
  SUM(POWER(CAST(u.m1_d AS DOUBLE), 2)) AS m1_denominator_sum_squares,
  SUM(CAST(u.m1_n AS DOUBLE) * CAST(u.m1_d AS DOUBLE)) AS m1_main_denominator_sum_product,
  SUM(CAST(u.m1_n_pre AS DOUBLE)) AS m1_covariate_sum,
  SUM(POWER(CAST(u.m1_n_pre AS DOUBLE), 2)) AS m1_covariate_sum_squares,
  SUM(CAST(u.m1_n AS DOUBLE) * CAST(u.m1_n_pre AS DOUBLE)) AS m1_main_covariate_sum_product,
  SUM(CAST(u.m1_d_pre AS DOUBLE)) AS m1_denominator_pre_sum,
  SUM(POWER(CAST(u.m1_d_pre AS DOUBLE), 2)) AS m1_denominator_pre_sum_squares,
  SUM(CAST(u.m1_n AS DOUBLE) * CAST(u.m1_d_pre AS DOUBLE)) AS m1_main_post_denominator_pre_sum_product,
  SUM(CAST(u.m1_n_pre AS DOUBLE) * CAST(u.m1_d AS DOUBLE)) AS m1_main_pre_denominator_post_sum_product,
  SUM(CAST(u.m1_n_pre AS DOUBLE) * CAST(u.m1_d_pre AS DOUBLE)) AS m1_main_pre_denominator_pre_sum_product,
  SUM(CAST(u.m1_d AS DOUBLE) * CAST(u.m1_d_pre AS DOUBLE)) AS m1_denominator_post_denominator_pre_sum_product
FROM __units_all u
GROUP BY u.variation, u.dimension
ORDER BY u.variation, u.dimension

-- query q1_ftb_sessions
-- Fact table Sessions (ftb_sessions): retained, active_days, active_days_week
WITH __exposures AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN COUNT(DISTINCT CAST(e."variation_id" AS VARCHAR)) > 1 THEN '__multiple__'
      ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure,
    'All' AS dimension
  FROM (
SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')
  ) e
  WHERE CAST(e."experiment_id" AS VARCHAR) = 'exp-key'
    AND e."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND e."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z')
  GROUP BY e."user_id"
),
__facts AS (
  SELECT
    f."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    1 AS m0_n,
    CAST(f."timestamp" AS DATE) AS m1_n,
    CAST(f."timestamp" AS DATE) AS m2_n
  FROM (
SELECT user_id, timestamp FROM read_csv('sessions.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-22T00:00:00.000Z')
),
__units AS (
  SELECT
    x.unit_id,
    x.variation,
    x.dimension,
    COALESCE(MAX(CASE WHEN f."timestamp" >= date_add('minute', 2880, x.first_exposure) AND f."timestamp" <= date_add('minute', 7200, x.first_exposure) THEN f.m0_n END), 0) AS m0_n,
    CAST(COUNT(DISTINCT CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m1_n END) AS DOUBLE) / CAST(GREATEST(date_diff('day', MIN(x.first_exposure), from_iso8601_timestamp('2024-05-15T00:00:00.000Z')) + 1, 1) AS DOUBLE) AS m1_n,
    CAST(COUNT(DISTINCT CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 10080, x.first_exposure) THEN f.m2_n END) AS DOUBLE) / CAST(GREATEST(date_diff('day', MIN(x.first_exposure), LEAST(current_timestamp, date_add('minute', 10080, MIN(x.first_exposure)))) + 1, 1) AS DOUBLE) AS m2_n
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation, x.dimension
)
SELECT
  u.variation,
  u.dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares,
  SUM(CAST(u.m1_n AS DOUBLE)) AS m1_main_sum,
  SUM(POWER(CAST(u.m1_n AS DOUBLE), 2)) AS m1_main_sum_squares,
  SUM(CAST(u.m2_n AS DOUBLE)) AS m2_main_sum,
  SUM(POWER(CAST(u.m2_n AS DOUBLE), 2)) AS m2_main_sum_squares
FROM __units u
GROUP BY u.variation, u.dimension
ORDER BY u.variation, u.dimension
