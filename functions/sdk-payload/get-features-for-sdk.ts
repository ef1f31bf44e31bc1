import { NotFoundError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { HttpResponse } from '../../shared/api/responses';
import { getFeaturesForSdk } from '../../shared/contracts/sdk-payload';
import { sdkPayloadResponse } from '../../shared/domain/sdk-payload';
import { findSdkKey } from '../../shared/store/sdk-connections';
import { loadSdkPayload } from '../../shared/store/sdk-payloads';

export const handler = endpoint(getFeaturesForSdk, async ({ params, event }) => {
  const connection = await findSdkKey(params.clientKey);
  if (!connection) throw new NotFoundError(`No SDK connection has the key ${params.clientKey}`);
  const { status, body, headers } = sdkPayloadResponse(await loadSdkPayload(connection), {
    ifNoneMatch: event.headers?.['if-none-match'],
    encryptionKey: connection.encryptPayload ? connection.encryptionKey : undefined,
  });
  return new HttpResponse(status, body, headers);
});
