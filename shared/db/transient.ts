/**
 * Which DynamoDB failures are transient: worth sending again a little later. One decision for both
 * the client's own retries (dynamo-http.ts) and the API's answer once those retries are spent (503
 * with Retry-After, shared/api/endpoint.ts), classified as the AWS SDK's standard retry strategy
 * does (@smithy/core, submodules/retry/service-error-classification).
 */

/** An error as the client raises it: DynamoDB's type as its name, a Node.js network code, the HTTP status. */
interface ClientError {
  name?: string;
  code?: string;
  $metadata?: { httpStatusCode?: number; clockSkewCorrected?: boolean };
  CancellationReasons?: Array<{ Code?: string }>;
}

/** Error types DynamoDB answers when it is over a limit: retried after a longer pause. */
const throttlingTypes = new Set([
  'ProvisionedThroughputExceededException',
  'ThrottlingException',
  'RequestLimitExceeded',
  'LimitExceededException',
  'TransactionInProgressException',
]);

/**
 * Why a transaction was cancelled, per item: DynamoDB names these two when an item's partition or
 * the table was over its capacity (the transaction was not applied; sending it again with the same
 * ClientRequestToken is safe). The other codes are not transient: `ConditionalCheckFailed` and
 * `TransactionConflict` are lost races (shared/db/optimistic.ts re-reads for them),
 * `ItemCollectionSizeLimitExceeded` and `ValidationError` fail again however often they are sent.
 */
const throttledCancellations = new Set(['ThrottlingError', 'ProvisionedThroughputExceeded']);

/** Timeouts named by the SDK's classification, and DynamoDB's own server errors by type. */
const transientTypes = new Set(['TimeoutError', 'RequestTimeout', 'RequestTimeoutException', 'InternalServerError', 'ServiceUnavailable']);
/** Connections dropped, refused, silent or not made (the SDK's NODEJS_TIMEOUT_ERROR_CODES and NODEJS_NETWORK_ERROR_CODES). */
const networkCodes = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN']);
const transientStatuses = new Set([500, 502, 503, 504]);

/** True when DynamoDB (or the way to it) is over a limit: a throttling type, a 429, or a transaction cancelled for capacity. */
export function isThrottling(error: unknown): boolean {
  const failure = error as ClientError | undefined;
  if (!failure) return false;
  if (throttlingTypes.has(failure.name ?? '') || failure.$metadata?.httpStatusCode === 429) return true;
  return failure.name === 'TransactionCanceledException' && (failure.CancellationReasons ?? []).some((reason) => throttledCancellations.has(reason.Code ?? ''));
}

/**
 * True when a DynamoDB call failed in a way that may not happen again: throttling, a server error
 * (500, 502, 503, 504), a connection dropped or silent, a request whose clock was just corrected.
 */
export function isTransient(error: unknown): boolean {
  const failure = error as ClientError | undefined;
  if (!failure || isThrottling(failure)) return Boolean(failure);
  return (
    transientTypes.has(failure.name ?? '') ||
    networkCodes.has(failure.code ?? '') ||
    transientStatuses.has(failure.$metadata?.httpStatusCode ?? 0) ||
    failure.$metadata?.clockSkewCorrected === true
  );
}
