-- query q0_ftb_orders
-- Fact table Orders (ftb_orders): rev_per_session, rev_per_session_cuped, revenue_p90, order_p90
WITH __exposures AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN MIN(CAST(e."variation_id" AS VARCHAR)) <> MAX(CAST(e."variation_id" AS VARCHAR)) THEN '__multiple__' ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure
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
    CAST(f."amount" AS DOUBLE) AS m0_n
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
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m0_n END), 0) AS m0_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m0_n END), 0) AS m1_n,
    COALESCE(SUM(CASE WHEN f."timestamp" >= date_add('minute', -10080, x.first_exposure) AND f."timestamp" < x.first_exposure THEN f.m0_n END), 0) AS m1_n_pre
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation
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
__events_m3 AS (
  SELECT x.unit_id, x.variation, f.m0_n AS value
  FROM __exposures x
  JOIN __facts f ON f.unit_id = x.unit_id
  WHERE f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') AND f.m0_n IS NOT NULL
),
__quantiles_m3 AS (
  SELECT
    e.variation,
    approx_percentile(e.value, 0.9) AS quantile,
    approx_percentile(e.value, 0.8412010804637984) AS quantile_lower_100,
    approx_percentile(e.value, 0.9587989195362017) AS quantile_upper_100,
    approx_percentile(e.value, 0.8584228852695097) AS quantile_lower_200,
    approx_percentile(e.value, 0.9415771147304903) AS quantile_upper_200,
    approx_percentile(e.value, 0.8706005402318993) AS quantile_lower_400,
    approx_percentile(e.value, 0.9293994597681008) AS quantile_upper_400,
    approx_percentile(e.value, 0.8792114426347548) AS quantile_lower_800,
    approx_percentile(e.value, 0.9207885573652452) AS quantile_upper_800,
    approx_percentile(e.value, 0.8853002701159496) AS quantile_lower_1600,
    approx_percentile(e.value, 0.9146997298840505) AS quantile_upper_1600,
    approx_percentile(e.value, 0.8896057213173775) AS quantile_lower_3200,
    approx_percentile(e.value, 0.9103942786826226) AS quantile_upper_3200,
    approx_percentile(e.value, 0.8926501350579749) AS quantile_lower_6400,
    approx_percentile(e.value, 0.9073498649420252) AS quantile_upper_6400,
    approx_percentile(e.value, 0.8948028606586887) AS quantile_lower_12800,
    approx_percentile(e.value, 0.9051971393413113) AS quantile_upper_12800,
    approx_percentile(e.value, 0.8963250675289874) AS quantile_lower_25600,
    approx_percentile(e.value, 0.9036749324710126) AS quantile_upper_25600,
    approx_percentile(e.value, 0.8974014303293444) AS quantile_lower_51200,
    approx_percentile(e.value, 0.9025985696706557) AS quantile_upper_51200,
    approx_percentile(e.value, 0.8981625337644937) AS quantile_lower_102400,
    approx_percentile(e.value, 0.9018374662355063) AS quantile_upper_102400,
    approx_percentile(e.value, 0.8987007151646722) AS quantile_lower_204800,
    approx_percentile(e.value, 0.9012992848353278) AS quantile_upper_204800,
    approx_percentile(e.value, 0.8990812668822469) AS quantile_lower_409600,
    approx_percentile(e.value, 0.9009187331177532) AS quantile_upper_409600,
    approx_percentile(e.value, 0.8993503575823361) AS quantile_lower_819200,
    approx_percentile(e.value, 0.900649642417664) AS quantile_upper_819200,
    approx_percentile(e.value, 0.8995406334411234) AS quantile_lower_1638400,
    approx_percentile(e.value, 0.9004593665588766) AS quantile_upper_1638400,
    approx_percentile(e.value, 0.8996751787911681) AS quantile_lower_3276800,
    approx_percentile(e.value, 0.900324821208832) AS quantile_upper_3276800,
    approx_percentile(e.value, 0.8997703167205617) AS quantile_lower_6553600,
    approx_percentile(e.value, 0.9002296832794383) AS quantile_upper_6553600,
    approx_percentile(e.value, 0.899837589395584) AS quantile_lower_13107200,
    approx_percentile(e.value, 0.900162410604416) AS quantile_upper_13107200,
    approx_percentile(e.value, 0.8998851583602808) AS quantile_lower_26214400,
    approx_percentile(e.value, 0.9001148416397192) AS quantile_upper_26214400,
    approx_percentile(e.value, 0.899918794697792) AS quantile_lower_52428800,
    approx_percentile(e.value, 0.900081205302208) AS quantile_upper_52428800
  FROM __events_m3 e
  GROUP BY e.variation
),
__event_units_m3 AS (
  SELECT e.unit_id, COUNT(*) AS events, SUM(CASE WHEN e.value <= q.quantile THEN 1 ELSE 0 END) AS below
  FROM __events_m3 e
  JOIN __quantiles_m3 q ON q.variation = e.variation
  GROUP BY e.unit_id
),
__units_all AS (
  SELECT
    u.*,
    d1.m0_d,
    d1.m1_d,
    d1.m1_d_pre,
    COALESCE(eu_m3.events, 0) AS m3_events,
    COALESCE(eu_m3.below, 0) AS m3_below
  FROM __units u
  LEFT JOIN __units_d1 d1 ON d1.unit_id = u.unit_id
  LEFT JOIN __event_units_m3 eu_m3 ON eu_m3.unit_id = u.unit_id
)
SELECT
  u.variation,
  'All' AS dimension,
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
  SUM(CAST(u.m1_d AS DOUBLE) * CAST(u.m1_d_pre AS DOUBLE)) AS m1_denominator_post_denominator_pre_sum_product,
  SUM(CAST(u.m1_n AS DOUBLE)) AS m2_main_sum,
  SUM(POWER(CAST(u.m1_n AS DOUBLE), 2)) AS m2_main_sum_squares,
  COUNT(CASE WHEN u.m1_n <> 0 THEN 1 END) AS m2_quantile_n,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9) AS m2_quantile,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8412010804637984) AS m2_quantile_lower_100,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9587989195362017) AS m2_quantile_upper_100,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8584228852695097) AS m2_quantile_lower_200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9415771147304903) AS m2_quantile_upper_200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8706005402318993) AS m2_quantile_lower_400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9293994597681008) AS m2_quantile_upper_400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8792114426347548) AS m2_quantile_lower_800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9207885573652452) AS m2_quantile_upper_800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8853002701159496) AS m2_quantile_lower_1600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9146997298840505) AS m2_quantile_upper_1600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8896057213173775) AS m2_quantile_lower_3200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9103942786826226) AS m2_quantile_upper_3200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8926501350579749) AS m2_quantile_lower_6400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9073498649420252) AS m2_quantile_upper_6400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8948028606586887) AS m2_quantile_lower_12800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9051971393413113) AS m2_quantile_upper_12800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8963250675289874) AS m2_quantile_lower_25600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9036749324710126) AS m2_quantile_upper_25600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8974014303293444) AS m2_quantile_lower_51200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9025985696706557) AS m2_quantile_upper_51200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8981625337644937) AS m2_quantile_lower_102400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9018374662355063) AS m2_quantile_upper_102400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8987007151646722) AS m2_quantile_lower_204800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9012992848353278) AS m2_quantile_upper_204800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8990812668822469) AS m2_quantile_lower_409600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9009187331177532) AS m2_quantile_upper_409600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8993503575823361) AS m2_quantile_lower_819200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.900649642417664) AS m2_quantile_upper_819200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8995406334411234) AS m2_quantile_lower_1638400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9004593665588766) AS m2_quantile_upper_1638400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8996751787911681) AS m2_quantile_lower_3276800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.900324821208832) AS m2_quantile_upper_3276800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8997703167205617) AS m2_quantile_lower_6553600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9002296832794383) AS m2_quantile_upper_6553600,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.899837589395584) AS m2_quantile_lower_13107200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.900162410604416) AS m2_quantile_upper_13107200,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.8998851583602808) AS m2_quantile_lower_26214400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.9001148416397192) AS m2_quantile_upper_26214400,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.899918794697792) AS m2_quantile_lower_52428800,
  approx_percentile(CASE WHEN u.m1_n <> 0 THEN CAST(u.m1_n AS DOUBLE) END, 0.900081205302208) AS m2_quantile_upper_52428800,
  SUM(CAST(u.m3_below AS DOUBLE)) AS m3_main_sum,
  SUM(POWER(CAST(u.m3_below AS DOUBLE), 2)) AS m3_main_sum_squares,
  SUM(CAST(u.m3_events AS DOUBLE)) AS m3_denominator_sum,
  SUM(POWER(CAST(u.m3_events AS DOUBLE), 2)) AS m3_denominator_sum_squares,
  SUM(CAST(u.m3_below AS DOUBLE) * CAST(u.m3_events AS DOUBLE)) AS m3_main_denominator_sum_product,
  SUM(CAST(u.m3_events AS DOUBLE)) AS m3_quantile_n,
  MAX(q_m3.quantile) AS m3_quantile,
  MAX(q_m3.quantile_lower_100) AS m3_quantile_lower_100,
  MAX(q_m3.quantile_upper_100) AS m3_quantile_upper_100,
  MAX(q_m3.quantile_lower_200) AS m3_quantile_lower_200,
  MAX(q_m3.quantile_upper_200) AS m3_quantile_upper_200,
  MAX(q_m3.quantile_lower_400) AS m3_quantile_lower_400,
  MAX(q_m3.quantile_upper_400) AS m3_quantile_upper_400,
  MAX(q_m3.quantile_lower_800) AS m3_quantile_lower_800,
  MAX(q_m3.quantile_upper_800) AS m3_quantile_upper_800,
  MAX(q_m3.quantile_lower_1600) AS m3_quantile_lower_1600,
  MAX(q_m3.quantile_upper_1600) AS m3_quantile_upper_1600,
  MAX(q_m3.quantile_lower_3200) AS m3_quantile_lower_3200,
  MAX(q_m3.quantile_upper_3200) AS m3_quantile_upper_3200,
  MAX(q_m3.quantile_lower_6400) AS m3_quantile_lower_6400,
  MAX(q_m3.quantile_upper_6400) AS m3_quantile_upper_6400,
  MAX(q_m3.quantile_lower_12800) AS m3_quantile_lower_12800,
  MAX(q_m3.quantile_upper_12800) AS m3_quantile_upper_12800,
  MAX(q_m3.quantile_lower_25600) AS m3_quantile_lower_25600,
  MAX(q_m3.quantile_upper_25600) AS m3_quantile_upper_25600,
  MAX(q_m3.quantile_lower_51200) AS m3_quantile_lower_51200,
  MAX(q_m3.quantile_upper_51200) AS m3_quantile_upper_51200,
  MAX(q_m3.quantile_lower_102400) AS m3_quantile_lower_102400,
  MAX(q_m3.quantile_upper_102400) AS m3_quantile_upper_102400,
  MAX(q_m3.quantile_lower_204800) AS m3_quantile_lower_204800,
  MAX(q_m3.quantile_upper_204800) AS m3_quantile_upper_204800,
  MAX(q_m3.quantile_lower_409600) AS m3_quantile_lower_409600,
  MAX(q_m3.quantile_upper_409600) AS m3_quantile_upper_409600,
  MAX(q_m3.quantile_lower_819200) AS m3_quantile_lower_819200,
  MAX(q_m3.quantile_upper_819200) AS m3_quantile_upper_819200,
  MAX(q_m3.quantile_lower_1638400) AS m3_quantile_lower_1638400,
  MAX(q_m3.quantile_upper_1638400) AS m3_quantile_upper_1638400,
  MAX(q_m3.quantile_lower_3276800) AS m3_quantile_lower_3276800,
  MAX(q_m3.quantile_upper_3276800) AS m3_quantile_upper_3276800,
  MAX(q_m3.quantile_lower_6553600) AS m3_quantile_lower_6553600,
  MAX(q_m3.quantile_upper_6553600) AS m3_quantile_upper_6553600,
  MAX(q_m3.quantile_lower_13107200) AS m3_quantile_lower_13107200,
  MAX(q_m3.quantile_upper_13107200) AS m3_quantile_upper_13107200,
  MAX(q_m3.quantile_lower_26214400) AS m3_quantile_lower_26214400,
  MAX(q_m3.quantile_upper_26214400) AS m3_quantile_upper_26214400,
  MAX(q_m3.quantile_lower_52428800) AS m3_quantile_lower_52428800,
  MAX(q_m3.quantile_upper_52428800) AS m3_quantile_upper_52428800
FROM __units_all u
LEFT JOIN __quantiles_m3 q_m3 ON q_m3.variation = u.variation
GROUP BY u.variation
ORDER BY u.variation

-- query q1_ftb_sessions
-- Fact table Sessions (ftb_sessions): retained, active_days, active_days_week
WITH __exposures AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN MIN(CAST(e."variation_id" AS VARCHAR)) <> MAX(CAST(e."variation_id" AS VARCHAR)) THEN '__multiple__' ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure
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
    CAST(f."timestamp" AS DATE) AS m1_n
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
    COALESCE(MAX(CASE WHEN f."timestamp" >= date_add('minute', 2880, x.first_exposure) AND f."timestamp" <= date_add('minute', 7200, x.first_exposure) THEN f.m0_n END), 0) AS m0_n,
    CAST(COUNT(DISTINCT CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m1_n END) AS DOUBLE) / CAST(GREATEST(date_diff('day', MIN(x.first_exposure), from_iso8601_timestamp('2024-05-15T00:00:00.000Z')) + 1, 1) AS DOUBLE) AS m1_n,
    CAST(COUNT(DISTINCT CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 10080, x.first_exposure) THEN f.m1_n END) AS DOUBLE) / CAST(GREATEST(date_diff('day', MIN(x.first_exposure), LEAST(current_timestamp, date_add('minute', 10080, MIN(x.first_exposure)))) + 1, 1) AS DOUBLE) AS m2_n
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation
)
SELECT
  u.variation,
  'All' AS dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares,
  SUM(CAST(u.m1_n AS DOUBLE)) AS m1_main_sum,
  SUM(POWER(CAST(u.m1_n AS DOUBLE), 2)) AS m1_main_sum_squares,
  SUM(CAST(u.m2_n AS DOUBLE)) AS m2_main_sum,
  SUM(POWER(CAST(u.m2_n AS DOUBLE), 2)) AS m2_main_sum_squares
FROM __units u
GROUP BY u.variation
ORDER BY u.variation
