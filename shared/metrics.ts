import { logger } from './logger';

/**
 * Metrics as CloudWatch Embedded Metric Format (EMF) lines: a JSON log line whose `_aws` member
 * tells CloudWatch Logs which of its top-level members are metrics, and by which dimensions, so
 * CloudWatch makes the metrics from the log line itself, with no API call and no agent. Written by
 * hand through our logger rather than with Powertools' Metrics (2.36), which in a minimal bundle
 * weighed 15.6 KB against this file's 3.2 KB (logger included) and cost a process that loads it and
 * writes one line about 14 M instructions more: for what is one object literal and one write.
 *
 * On when `METRICS=emf` (the stacks set it on every function); off otherwise, so tests and
 * `npm start` print no metric lines unless asked. Each unique combination of namespace, metric
 * name and dimension values is a custom metric CloudWatch bills monthly, so dimensions here are
 * few and low in cardinality: an operation id, a function's role, a snapshot's outcome; never an
 * organization, key or id.
 */

/** The units CloudWatch accepts, of those we use. */
export type MetricUnit = 'Count' | 'Milliseconds' | 'None';

export interface Metric {
  name: string;
  unit: MetricUnit;
  value: number;
}

/** Metrics that share dimension sets: one CloudWatchMetrics directive. */
export interface MetricGroup {
  /** Each inner list is a dimension set: the metrics are published once per set. */
  dimensions: string[][];
  metrics: Metric[];
}

/** CloudWatch's limits on one EMF document. */
const MAX_DIMENSIONS_PER_SET = 30;
const MAX_METRICS_PER_DIRECTIVE = 100;

/** Whether this process writes metric lines (`METRICS=emf`). */
export const metricsEnabled = () => process.env.METRICS === 'emf';

/** The namespace of every metric: `METRICS_NAMESPACE` (the stacks set `Switchyard/<stage>`), else `Switchyard/local`. */
export const metricsNamespace = () => process.env.METRICS_NAMESPACE ?? 'Switchyard/local';

/**
 * One EMF document: the `_aws` metadata, the dimension values and each metric's value at the top
 * level, as the specification requires. Throws on what CloudWatch would reject silently: a
 * dimension without a value, a metric that is not a finite number, a name used twice.
 */
export function emfDocument(namespace: string, timestamp: number, dimensionValues: Record<string, string>, groups: MetricGroup[]): Record<string, unknown> {
  const document: Record<string, unknown> = { ...dimensionValues };
  // A group left empty (no value recorded for it) is no directive at all.
  const directives = groups.filter((group) => group.metrics.length > 0).map((group) => {
    for (const set of group.dimensions) {
      if (set.length > MAX_DIMENSIONS_PER_SET) throw new Error(`A dimension set has more than ${MAX_DIMENSIONS_PER_SET} dimensions`);
      const missing = set.find((name) => typeof dimensionValues[name] !== 'string');
      if (missing) throw new Error(`Dimension ${missing} has no value`);
    }
    if (group.metrics.length > MAX_METRICS_PER_DIRECTIVE) throw new Error(`More than ${MAX_METRICS_PER_DIRECTIVE} metrics in one directive`);
    for (const metric of group.metrics) {
      if (!Number.isFinite(metric.value)) throw new Error(`Metric ${metric.name} is not a finite number: ${metric.value}`);
      if (metric.name in document) throw new Error(`${metric.name} is named twice`);
      document[metric.name] = metric.value;
    }
    return { Namespace: namespace, Dimensions: group.dimensions, Metrics: group.metrics.map(({ name, unit }) => ({ Name: name, Unit: unit })) };
  });
  return { _aws: { Timestamp: timestamp, CloudWatchMetrics: directives }, ...document };
}

/**
 * Writes one EMF line through the logger when metrics are on, with the `Service` dimension (the
 * service's name) besides `dimensionValues`; never throws (a metric never fails what it measures).
 */
export function emitMetrics(dimensionValues: Record<string, string>, groups: MetricGroup[]): void {
  if (!metricsEnabled()) return;
  try {
    const service = process.env.POWERTOOLS_SERVICE_NAME ?? 'switchyard';
    logger.metrics(emfDocument(metricsNamespace(), Date.now(), { Service: service, ...dimensionValues }, groups));
  } catch (error) {
    logger.warn('Metrics not written', { error });
  }
}

/**
 * Values the code under a request adds for the request's metric line (the SDK payload's cache
 * hit, say). Lambda runs one request at a time per container, so one set for the process is the
 * request's own; the local server may interleave requests, which only blurs local metric lines.
 */
const requestValues = new Map<string, Metric>();

/** Records `value` under `name` in the current request's metric line (the last value wins). */
export function putRequestMetric(name: string, value: number, unit: MetricUnit = 'Count'): void {
  if (metricsEnabled()) requestValues.set(name, { name, unit, value });
}

/** The values recorded for the current request, cleared for the next one. */
export function takeRequestMetrics(): Metric[] {
  const values = [...requestValues.values()];
  requestValues.clear();
  return values;
}
