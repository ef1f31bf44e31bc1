import { Logger } from '@aws-lambda-powertools/logger';
import { mapErrorStack } from './source-maps';

/**
 * The one structured JSON logger; it never receives request headers, so no key reaches a log.
 * A logged error's stack is mapped to the TypeScript sources (see source-maps.ts) before the
 * Logger formats it.
 */
export const logger = new Logger({
  serviceName: 'switchyard',
  logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO',
  jsonReplacerFn: (_key, value) => (value instanceof Error ? mapErrorStack(value) : value),
});
