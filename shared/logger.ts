import type { Context } from 'aws-lambda';
import { mapErrorStack } from './source-maps';

/**
 * The one structured logger: one JSON line per entry on stdout (WARN and ERROR on stderr), with the
 * keys of Powertools' Logger, which it replaced (`level`, `message`, `timestamp`, `service`,
 * `cold_start`, `function_name`, `function_request_id`, `xray_trace_id`, then the entry's own
 * attributes). Building Powertools' Logger and its middleware cost every cold start about 10 M
 * instructions, logging or not, and 17 M when they were the first to open stdout and stderr; this
 * touches the streams only when it writes. It never receives request headers, so no key reaches a log.
 */
const levels = { TRACE: 6, DEBUG: 8, INFO: 12, WARN: 16, ERROR: 20, CRITICAL: 24, SILENT: 28 } as const;
type Level = keyof typeof levels;

const threshold = levels[(process.env.LOG_LEVEL ?? '').toUpperCase() as Level] ?? levels.INFO;

type Attributes = Record<string, unknown>;

let lambda: Attributes = {};
let coldStart = true;

/** `file:line` of the first frame with a location, as Powertools gives it. */
function codeLocation(stack: string | undefined): string {
  for (const line of stack?.split('\n') ?? []) {
    const match = /\(([^()]*?):(\d+?):(\d+?)\)\\?$/.exec(line);
    if (match) return `${match[1]}:${Number(match[2])}`;
  }
  return '';
}

/** An error as a plain object, its stack mapped to the sources (see source-maps.ts), its causes too. */
function formatError(error: Error): Attributes {
  const { name, message, stack, cause } = mapErrorStack(error);
  const formatted: Attributes = { name, location: codeLocation(stack), message, stack, cause: cause instanceof Error ? formatError(cause) : cause };
  for (const key of Object.keys(error)) if (!(key in formatted)) formatted[key] = (error as unknown as Attributes)[key];
  return formatted;
}

/** JSON.stringify's replacer: errors as objects, bigints as text, a repeated object as `[Circular]`. */
function replacer() {
  const seen = new WeakSet<object>();
  return (_key: string, value: unknown) => {
    if (value instanceof Error) return formatError(value);
    if (typeof value === 'bigint') return value.toString();
    if (typeof value === 'object' && value !== null) {
      if (seen.has(value)) return '[Circular]';
      seen.add(value);
    }
    return value;
  };
}

function write(level: Level, message: string, attributes: Attributes = {}, always = false): void {
  if (levels[level] < threshold && !always) return;
  const entry = {
    level,
    message,
    timestamp: new Date().toISOString(),
    service: process.env.POWERTOOLS_SERVICE_NAME ?? 'switchyard',
    ...lambda,
    xray_trace_id: process.env._X_AMZN_TRACE_ID?.match(/Root=([^;]+)/)?.[1],
    ...attributes,
  };
  try {
    const line = `${JSON.stringify(entry, replacer())}\n`;
    (levels[level] >= levels.WARN ? process.stderr : process.stdout).write(line);
  } catch {
    // Logging never fails the request it describes.
  }
}

export const logger = {
  debug: (message: string, attributes?: Attributes) => write('DEBUG', message, attributes),
  info: (message: string, attributes?: Attributes) => write('INFO', message, attributes),
  warn: (message: string, attributes?: Attributes) => write('WARN', message, attributes),
  error: (message: string, attributes?: Attributes) => write('ERROR', message, attributes),
  /**
   * An EMF document (shared/metrics.ts) as an INFO line, whatever LOG_LEVEL says: metrics are not
   * diagnostics, and a quieter log must not empty the dashboards.
   */
  metrics: (document: Attributes) => write('INFO', 'metrics', document, true),
  /** Tags every following entry with this invocation: its request id, and whether it is the container's first. */
  addContext(context: Context): void {
    lambda = {
      cold_start: coldStart,
      function_arn: context.invokedFunctionArn,
      function_memory_size: context.memoryLimitInMB,
      function_name: context.functionName,
      function_request_id: context.awsRequestId,
    };
    coldStart = false;
  },
};
