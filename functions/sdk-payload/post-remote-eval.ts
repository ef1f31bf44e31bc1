import { endpoint } from '../../shared/api/endpoint';
import { InvalidInputError, NotFoundError } from '../../shared/errors';
import { postRemoteEval } from '../../shared/contracts/sdk-payload';
import { remoteEvaluate } from '../../shared/payload/remote-eval';
import { findSdkKey } from '../../shared/store/sdk-connections';
import { remoteEvalResponse } from '../../shared/payload/http';
import { loadSdkPayload } from '../../shared/payload/serve';

export const handler = endpoint(postRemoteEval, async ({ params, body }) => {
  const connection = await findSdkKey(params.clientKey);
  if (!connection) throw new NotFoundError(`No SDK connection has the key ${params.clientKey}`);
  if (!connection.remoteEvalEnabled) throw new InvalidInputError(`Remote evaluation is not enabled for the SDK connection ${params.clientKey}`);
  const { payload } = await loadSdkPayload(connection);
  return remoteEvalResponse(remoteEvaluate(payload, body));
});
