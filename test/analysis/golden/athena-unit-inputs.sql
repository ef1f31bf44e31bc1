-- query q0_ftb_orders
-- Fact table Orders (ftb_orders): revenue
WITH __segment AS (
  SELECT s."user_id" AS unit_id, CAST(s."date" AS TIMESTAMP) AS "date"
  FROM (
SELECT user_id, date FROM read_csv('segment.csv')
  ) s
),
__dim_unit AS (
  SELECT d."user_id" AS unit_id, d."value" AS value
  FROM (
SELECT user_id, value FROM read_csv('plans.csv')
  ) d
),
__activation AS (
  SELECT f."user_id" AS unit_id, f."timestamp" AS "timestamp"
  FROM (
SELECT user_id, timestamp, amount FROM read_csv('orders.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-17T00:00:00.000Z')
),
__exposures_all AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN MIN(CAST(e."variation_id" AS VARCHAR)) <> MAX(CAST(e."variation_id" AS VARCHAR)) THEN '__multiple__' ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure,
    COALESCE(MAX(CAST(du.value AS VARCHAR)), '__NULL_DIMENSION') AS dimension,
    MIN(CASE WHEN a."timestamp" >= e."timestamp" AND a."timestamp" <= date_add('minute', 2880, e."timestamp") THEN a."timestamp" END) AS first_activation
  FROM (
  SELECT *
  FROM (
SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')
  ) e
  WHERE CAST(e."experiment_id" AS VARCHAR) = 'exp-key'
    AND e."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND e."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z')
  ) e
  JOIN __segment s ON s.unit_id = e."user_id" AND s."date" <= e."timestamp"
  LEFT JOIN __dim_unit du ON du.unit_id = e."user_id"
  LEFT JOIN __activation a ON a.unit_id = e."user_id"
  GROUP BY e."user_id"
),
__exposures AS (
  SELECT unit_id, variation, first_activation AS first_exposure, dimension
  FROM __exposures_all
  WHERE first_activation IS NOT NULL
),
__facts AS (
  SELECT
    f."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    CAST(f."amount" AS DOUBLE) AS m0_n
  FROM (
SELECT user_id, timestamp, amount FROM read_csv('orders.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-20T00:00:00.000Z')
),
__units AS (
  SELECT
    x.unit_id,
    x.variation,
    x.dimension,
    COALESCE(SUM(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= date_add('minute', 4320, x.first_exposure) THEN f.m0_n END), 0) AS m0_n
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation, x.dimension
)
SELECT
  u.variation,
  u.dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares
FROM __units u
GROUP BY u.variation, u.dimension
ORDER BY u.variation, u.dimension

-- query q1_ftb_views
-- Fact table Page views (ftb_views): page_views
WITH __segment AS (
  SELECT s."user_id" AS unit_id, CAST(s."date" AS TIMESTAMP) AS "date"
  FROM (
SELECT user_id, date FROM read_csv('segment.csv')
  ) s
),
__dim_unit AS (
  SELECT d."user_id" AS unit_id, d."value" AS value
  FROM (
SELECT user_id, value FROM read_csv('plans.csv')
  ) d
),
__activation AS (
  SELECT f."user_id" AS unit_id, f."timestamp" AS "timestamp"
  FROM (
SELECT user_id, timestamp, amount FROM read_csv('orders.csv')
  ) f
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-17T00:00:00.000Z')
),
__exposures_all AS (
  SELECT
    e."user_id" AS unit_id,
    CASE WHEN MIN(CAST(e."variation_id" AS VARCHAR)) <> MAX(CAST(e."variation_id" AS VARCHAR)) THEN '__multiple__' ELSE MAX(CAST(e."variation_id" AS VARCHAR)) END AS variation,
    MIN(e."timestamp") AS first_exposure,
    COALESCE(MAX(CAST(du.value AS VARCHAR)), '__NULL_DIMENSION') AS dimension,
    MIN(CASE WHEN a."timestamp" >= e."timestamp" AND a."timestamp" <= date_add('minute', 2880, e."timestamp") THEN a."timestamp" END) AS first_activation
  FROM (
  SELECT *
  FROM (
SELECT user_id, timestamp, experiment_id, variation_id FROM read_csv('exposures.csv')
  ) e
  WHERE CAST(e."experiment_id" AS VARCHAR) = 'exp-key'
    AND e."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND e."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z')
  ) e
  JOIN __segment s ON s.unit_id = e."user_id" AND s."date" <= e."timestamp"
  LEFT JOIN __dim_unit du ON du.unit_id = e."user_id"
  LEFT JOIN __activation a ON a.unit_id = e."user_id"
  GROUP BY e."user_id"
),
__exposures AS (
  SELECT unit_id, variation, first_activation AS first_exposure, dimension
  FROM __exposures_all
  WHERE first_activation IS NOT NULL
),
__facts AS (
  SELECT
    f_ids."user_id" AS unit_id,
    f."timestamp" AS "timestamp",
    1 AS m0_n
  FROM (
SELECT device_id, timestamp FROM read_csv('views.csv')
  ) f
  JOIN (
    SELECT i."user_id", i."device_id"
    FROM (
SELECT user_id, device_id FROM read_csv('devices.csv')
    ) i
    GROUP BY i."user_id", i."device_id"
  ) f_ids ON f_ids."device_id" = f."device_id"
  WHERE f."timestamp" >= from_iso8601_timestamp('2024-05-01T00:00:00.000Z')
    AND f."timestamp" <= from_iso8601_timestamp('2024-05-17T00:00:00.000Z')
),
__units AS (
  SELECT
    x.unit_id,
    x.variation,
    x.dimension,
    COUNT(CASE WHEN f."timestamp" >= x.first_exposure AND f."timestamp" <= from_iso8601_timestamp('2024-05-15T00:00:00.000Z') THEN f.m0_n END) AS m0_n
  FROM __exposures x
  LEFT JOIN __facts f ON f.unit_id = x.unit_id
  GROUP BY x.unit_id, x.variation, x.dimension
)
SELECT
  u.variation,
  u.dimension,
  COUNT(*) AS users,
  SUM(CAST(u.m0_n AS DOUBLE)) AS m0_main_sum,
  SUM(POWER(CAST(u.m0_n AS DOUBLE), 2)) AS m0_main_sum_squares
FROM __units u
GROUP BY u.variation, u.dimension
ORDER BY u.variation, u.dimension
