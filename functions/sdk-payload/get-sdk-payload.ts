import { NotFoundError } from '../../shared/errors';
import { endpoint } from '../../shared/api/endpoint';
import { HttpResponse } from '../../shared/api/responses';
import { getSdkPayload } from '../../shared/contracts/sdk-payload';
import { sdkPayloadResponse } from '../../shared/domain/sdk-payload';
import { findSdkKey } from '../../shared/store/sdk-connections';
import { loadSdkPayload } from '../../shared/store/sdk-payloads';

export const handler = endpoint(getSdkPayload, async ({ params, auth, event }) => {
  const connection = await findSdkKey(params.key);
  if (!connection || connection.orgId !== auth.orgId) throw new NotFoundError(`No SDK connection has the key ${params.key}`);
  const { status, body, headers } = sdkPayloadResponse(await loadSdkPayload(connection), {
    ifNoneMatch: event.headers?.['if-none-match'],
    encryptionKey: connection.encryptPayload ? connection.encryptionKey : undefined,
  });
  return new HttpResponse(status, body, headers);
});
