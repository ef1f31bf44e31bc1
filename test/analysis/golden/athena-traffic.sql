-- query q0_traffic
-- Traffic: units exposed per variation
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
)
SELECT
  x.variation,
  x.dimension,
  COUNT(*) AS users
FROM __exposures x
GROUP BY x.variation, x.dimension
ORDER BY x.variation, x.dimension
