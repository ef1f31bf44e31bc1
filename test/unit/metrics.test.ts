import Ajv from 'ajv';
import { captureOutput } from '../support/capture-output';
import { emfDocument, type MetricGroup } from '../../shared/metrics';

/**
 * The EMF document structure as CloudWatch's specification states it (Specification: Embedded
 * metric format): a root `_aws` member with an integer `Timestamp` (ms since the epoch) and
 * `CloudWatchMetrics` directives, each a `Namespace`, dimension sets of at most 30 names, and at
 * most 100 metric definitions with a `Name` and a CloudWatch `Unit`.
 */
const units = [
  'Seconds', 'Microseconds', 'Milliseconds', 'Bytes', 'Kilobytes', 'Megabytes', 'Gigabytes', 'Terabytes', 'Bits', 'Kilobits',
  'Megabits', 'Gigabits', 'Terabits', 'Percent', 'Count', 'Bytes/Second', 'Kilobytes/Second', 'Megabytes/Second',
  'Gigabytes/Second', 'Terabytes/Second', 'Bits/Second', 'Kilobits/Second', 'Megabits/Second', 'Gigabits/Second',
  'Terabits/Second', 'Count/Second', 'None',
];
const emfSchema = {
  type: 'object',
  required: ['_aws'],
  properties: {
    _aws: {
      type: 'object',
      required: ['Timestamp', 'CloudWatchMetrics'],
      additionalProperties: false,
      properties: {
        Timestamp: { type: 'integer', minimum: 0 },
        CloudWatchMetrics: {
          type: 'array',
          items: {
            type: 'object',
            required: ['Namespace', 'Dimensions', 'Metrics'],
            additionalProperties: false,
            properties: {
              Namespace: { type: 'string', minLength: 1, maxLength: 1024 },
              Dimensions: { type: 'array', items: { type: 'array', maxItems: 30, items: { type: 'string', minLength: 1, maxLength: 250 } } },
              Metrics: {
                type: 'array',
                minItems: 1,
                maxItems: 100,
                items: {
                  type: 'object',
                  required: ['Name'],
                  additionalProperties: false,
                  properties: { Name: { type: 'string', minLength: 1, maxLength: 1024 }, Unit: { enum: units } },
                },
              },
            },
          },
        },
      },
    },
  },
};
const validate = new Ajv().compile(emfSchema);

/** The spec's rules a schema cannot state: every dimension names a top-level string, every metric a top-level number. */
function referencesResolve(document: Record<string, any>): boolean {
  return document._aws.CloudWatchMetrics.every(
    (directive: { Dimensions: string[][]; Metrics: Array<{ Name: string }> }) =>
      directive.Dimensions.flat().every((name) => typeof document[name] === 'string') &&
      directive.Metrics.every(({ Name }) => typeof document[Name] === 'number'),
  );
}

const requestGroups: MetricGroup[] = [
  {
    dimensions: [['Service', 'Operation'], ['Service']],
    metrics: [
      { name: 'Latency', unit: 'Milliseconds', value: 12.5 },
      { name: 'ReadUnits', unit: 'None', value: 1.5 },
    ],
  },
  { dimensions: [['Service', 'StatusClass']], metrics: [{ name: 'Requests', unit: 'Count', value: 1 }] },
];

/** shared/metrics.ts (and the logger it writes through) loaded afresh with this environment, as a container starts. */
function metricsWith(env: Record<string, string | undefined>): typeof import('../../shared/metrics') & { restore(): void } {
  const saved = Object.fromEntries(Object.keys(env).map((name) => [name, process.env[name]]));
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete process.env[name];
    else process.env[name] = value;
  }
  let loaded!: typeof import('../../shared/metrics');
  jest.isolateModules(() => {
    loaded = require('../../shared/metrics');
  });
  return {
    ...loaded,
    restore: () => {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
}

const jsonLines = (output: string) => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

describe('an EMF document', () => {
  it('has the structure the specification requires, with the values and dimensions at the top level', () => {
    const document = emfDocument('Switchyard/test', 1_700_000_000_123, { Service: 'switchyard', Operation: 'getFeature', StatusClass: '2xx' }, requestGroups);

    expect(validate(document)).toBe(true);
    expect(referencesResolve(document)).toBe(true);
    expect(document).toEqual({
      _aws: {
        Timestamp: 1_700_000_000_123,
        CloudWatchMetrics: [
          {
            Namespace: 'Switchyard/test',
            Dimensions: [['Service', 'Operation'], ['Service']],
            Metrics: [
              { Name: 'Latency', Unit: 'Milliseconds' },
              { Name: 'ReadUnits', Unit: 'None' },
            ],
          },
          { Namespace: 'Switchyard/test', Dimensions: [['Service', 'StatusClass']], Metrics: [{ Name: 'Requests', Unit: 'Count' }] },
        ],
      },
      Service: 'switchyard',
      Operation: 'getFeature',
      StatusClass: '2xx',
      Latency: 12.5,
      ReadUnits: 1.5,
      Requests: 1,
    });
  });

  it('leaves out a group with no metrics rather than writing an empty directive', () => {
    const document = emfDocument('Switchyard/test', 1, { Service: 's', Operation: 'o' }, [...requestGroups.slice(0, 1), { dimensions: [['Service', 'Operation']], metrics: [] }]);

    expect((document._aws as { CloudWatchMetrics: unknown[] }).CloudWatchMetrics).toHaveLength(1);
    expect(validate(document)).toBe(true);
  });

  it.each([
    ['a dimension without a value', { Service: 's' }, requestGroups, /Dimension Operation has no value/],
    ['a value that is not a finite number', { Service: 's', Operation: 'o', StatusClass: '2xx' }, [{ dimensions: [['Service']], metrics: [{ name: 'Latency', unit: 'Milliseconds', value: NaN }] }], /Latency is not a finite number/],
    ['a metric named twice', { Service: 's' }, [{ dimensions: [['Service']], metrics: [{ name: 'A', unit: 'Count', value: 1 }] }, { dimensions: [['Service']], metrics: [{ name: 'A', unit: 'Count', value: 2 }] }], /A is named twice/],
    ['a metric named as a dimension', { Service: 's' }, [{ dimensions: [['Service']], metrics: [{ name: 'Service', unit: 'Count', value: 1 }] }], /Service is named twice/],
  ] as const)('refuses %s, which CloudWatch would drop without a word', (_case, dimensions, groups, message) => {
    expect(() => emfDocument('Switchyard/test', 1, dimensions, groups as MetricGroup[])).toThrow(message);
  });
});

describe('emitMetrics', () => {
  it('writes one EMF line through the logger when METRICS=emf, even when LOG_LEVEL hides INFO', async () => {
    const metrics = metricsWith({ METRICS: 'emf', METRICS_NAMESPACE: 'Switchyard/unit', LOG_LEVEL: 'ERROR' });

    const output = await captureOutput(async () => metrics.emitMetrics({ Operation: 'getFeature', StatusClass: '2xx' }, requestGroups));
    metrics.restore();

    const lines = jsonLines(output);
    expect(lines).toHaveLength(1);
    expect(validate(lines[0])).toBe(true);
    expect(referencesResolve(lines[0])).toBe(true);
    expect(lines[0]).toMatchObject({
      level: 'INFO',
      message: 'metrics',
      service: 'switchyard',
      Service: 'switchyard',
      Operation: 'getFeature',
      Latency: 12.5,
      _aws: { Timestamp: expect.any(Number), CloudWatchMetrics: [expect.objectContaining({ Namespace: 'Switchyard/unit' }), expect.anything()] },
    });
    expect(Math.abs(lines[0]._aws.Timestamp - Date.now())).toBeLessThan(60_000);
  });

  it('writes nothing unless METRICS=emf, and request values are not kept then', async () => {
    const metrics = metricsWith({ METRICS: undefined, LOG_LEVEL: 'DEBUG' });

    const output = await captureOutput(async () => {
      metrics.putRequestMetric('PayloadCacheHit', 1);
      metrics.emitMetrics({ Operation: 'getFeature', StatusClass: '2xx' }, requestGroups);
    });
    const kept = metrics.takeRequestMetrics();
    metrics.restore();

    expect(output).toBe('');
    expect(kept).toEqual([]);
  });

  it('logs a warning instead of throwing when a document is invalid: a metric never fails what it measures', async () => {
    const metrics = metricsWith({ METRICS: 'emf', LOG_LEVEL: 'WARN' });

    const output = await captureOutput(async () => metrics.emitMetrics({}, [{ dimensions: [['Operation']], metrics: [{ name: 'A', unit: 'Count', value: 1 }] }]));
    metrics.restore();

    expect(jsonLines(output)).toEqual([expect.objectContaining({ level: 'WARN', message: 'Metrics not written' })]);
  });

  it('hands the request values recorded since the last take, once', () => {
    const metrics = metricsWith({ METRICS: 'emf' });

    metrics.putRequestMetric('PayloadCacheHit', 0);
    metrics.putRequestMetric('PayloadCacheHit', 1);
    const first = metrics.takeRequestMetrics();
    const second = metrics.takeRequestMetrics();
    metrics.restore();

    expect(first).toEqual([{ name: 'PayloadCacheHit', unit: 'Count', value: 1 }]);
    expect(second).toEqual([]);
  });
});
