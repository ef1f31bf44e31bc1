-- query q0_ftb_events
-- Fact table Events (ftb_events): purchased, revenue, per_view
WITH __exposures AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN MIN(CAST(e."variation_id" AS VARCHAR)) <> MAX(CAST(e."variation_id" AS VARCHAR)) THEN '__multiple__' ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure,
    min_by(CAST(e."country" AS VARCHAR), e."timestamp") AS dimension
  FROM (
SELECT user_id, timestamp, experiment_id, variation_id, country FROM read_csv('exposures.csv')
  ) e
  WHERE CAST(e."experiment_id" AS VARCHAR) = 'exp-key'
    AND e."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND e."timestamp" <= from_iso8601_timestamp('2024-05-10T00:00:00.000Z')
  GROUP BY e."user_id"
  HAVING MIN(e."timestamp") <= date_add('minute', -4320, from_iso8601_timestamp('2024-05-10T00:00:00.000Z'))
),
__facts AS (
  SELECT
    f."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    CASE WHEN (event_type = 'purchase') THEN 1 END AS m0_n,
    CASE WHEN (event_type = 'purchase') THEN CAST(f."amount" AS DOUBLE) END AS m1_n,
    CASE WHEN (event_type = 'view') THEN 1 END AS m2_d
  FROM (
SELECT * FROM read_csv('events.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-04-17T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-13T00:00:00.000Z')
),
__units AS (
  SELECT
    x.unit_id,
    x.variation,
    x.dimension,
    COALESCE(MAX(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m0_n END), 0) AS m0_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m1_n END), 0) AS m1_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= date_add('minute', -20160, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m1_n END), 0) AS m1_n_pre,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-10T00:00:00.000Z') THEN f.m1_n END), 0) AS m2_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= date_add('minute', -10080, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m1_n END), 0) AS m2_n_pre,
    COUNT(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-10T00:00:00.000Z') THEN f.m2_d END) AS m2_d,
    COUNT(CASE WHEN f."timestamp" >= date_add('minute', -10080, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m2_d END) AS m2_d_pre
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation, x.dimension
),
__caps AS (
  SELECT
    approx_percentile(CASE WHEN m2_n <> 0 THEN CAST(m2_n AS DOUBLE) END, 0.9) AS m2_n_cap,
    approx_percentile(CASE WHEN m2_d <> 0 THEN CAST(m2_d AS DOUBLE) END, 0.9) AS m2_d_cap
  FROM __units
)
SELECT
  u.variation,
  u.dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares,
  SUM(LEAST(CAST(u.m1_n AS DOUBLE), 15)) AS m1_main_sum,
  SUM(POWER(LEAST(CAST(u.m1_n AS DOUBLE), 15), 2)) AS m1_main_sum_squares,
  SUM(LEAST(CAST(u.m1_n_pre AS DOUBLE), 15)) AS m1_covariate_sum,
  SUM(POWER(LEAST(CAST(u.m1_n_pre AS DOUBLE), 15), 2)) AS m1_covariate_sum_squares,
  SUM(LEAST(CAST(u.m1_n AS DOUBLE), 15) * LEAST(CAST(u.m1_n_pre AS DOUBLE), 15)) AS m1_main_covariate_sum_product,
  SUM(LEAST(CAST(u.m2_n AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n AS DOUBLE)))) AS m2_main_sum,
  SUM(POWER(LEAST(CAST(u.m2_n AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n AS DOUBLE))), 2)) AS m2_main_sum_squares,
  SUM(LEAST(CAST(u.m2_d AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d AS DOUBLE)))) AS m2_denominator_sum,
  SUM(POWER(LEAST(CAST(u.m2_d AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d AS DOUBLE))), 2)) AS m2_denominator_sum_squares,
  SUM(LEAST(CAST(u.m2_n AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n AS DOUBLE))) * LEAST(CAST(u.m2_d AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d AS DOUBLE)))) AS m2_main_denominator_sum_product,
  SUM(LEAST(CAST(u.m2_n_pre AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n_pre AS DOUBLE)))) AS m2_covariate_sum,
  SUM(POWER(LEAST(CAST(u.m2_n_pre AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n_pre AS DOUBLE))), 2)) AS m2_covariate_sum_squares,
  SUM(LEAST(CAST(u.m2_n AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n AS DOUBLE))) * LEAST(CAST(u.m2_n_pre AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n_pre AS DOUBLE)))) AS m2_main_covariate_sum_product,
  SUM(LEAST(CAST(u.m2_d_pre AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d_pre AS DOUBLE)))) AS m2_denominator_pre_sum,
  SUM(POWER(LEAST(CAST(u.m2_d_pre AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d_pre AS DOUBLE))), 2)) AS m2_denominator_pre_sum_squares,
  SUM(LEAST(CAST(u.m2_n AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n AS DOUBLE))) * LEAST(CAST(u.m2_d_pre AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d_pre AS DOUBLE)))) AS m2_main_post_denominator_pre_sum_product,
  SUM(LEAST(CAST(u.m2_n_pre AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n_pre AS DOUBLE))) * LEAST(CAST(u.m2_d AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d AS DOUBLE)))) AS m2_main_pre_denominator_post_sum_product,
  SUM(LEAST(CAST(u.m2_n_pre AS DOUBLE), COALESCE(c.m2_n_cap, CAST(u.m2_n_pre AS DOUBLE))) * LEAST(CAST(u.m2_d_pre AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d_pre AS DOUBLE)))) AS m2_main_pre_denominator_pre_sum_product,
  SUM(LEAST(CAST(u.m2_d AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d AS DOUBLE))) * LEAST(CAST(u.m2_d_pre AS DOUBLE), COALESCE(c.m2_d_cap, CAST(u.m2_d_pre AS DOUBLE)))) AS m2_denominator_post_denominator_pre_sum_product
FROM __units u
CROSS JOIN __caps c
GROUP BY u.variation, u.dimension
ORDER BY u.variation, u.dimension
