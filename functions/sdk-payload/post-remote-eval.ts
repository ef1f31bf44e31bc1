import { endpoint } from '../../shared/api/endpoint';
import { HttpResponse } from '../../shared/api/responses';
import { InvalidInputError, NotFoundError } from '../../shared/errors';
import { postRemoteEval } from '../../shared/contracts/sdk-payload';
import { remoteEvaluate } from '../../shared/payload/remote-eval';
import { findSdkKey } from '../../shared/store/sdk-connections';
import { loadSdkPayload } from '../../shared/payload/serve';

/** Each answer is for one user: no cache may keep it. */
const headers = { 'cache-control': 'no-store', 'access-control-allow-origin': '*' };

export const handler = endpoint(postRemoteEval, async ({ params, body }) => {
  const connection = await findSdkKey(params.clientKey);
  if (!connection) throw new NotFoundError(`No SDK connection has the key ${params.clientKey}`);
  if (!connection.remoteEvalEnabled) throw new InvalidInputError(`Remote evaluation is not enabled for the SDK connection ${params.clientKey}`);
  const { payload } = await loadSdkPayload(connection);
  return new HttpResponse(200, remoteEvaluate(payload, body), headers);
});
