import { Logger } from '@aws-lambda-powertools/logger';

/** The one structured JSON logger; it never receives request headers, so no key reaches a log. */
export const logger = new Logger({
  serviceName: 'switchyard',
  logLevel: (process.env.LOG_LEVEL as 'INFO') ?? 'INFO',
});
