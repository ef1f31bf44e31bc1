import type * as contract from '../contracts/sdk-payload';
import type { UseCaseInput } from '../contracts/spec';
import { InvalidInputError, NotFoundError } from '../errors';
import { remoteEvaluate } from '../payload/remote-eval';
import { loadSdkPayload } from '../payload/serve';
import type { SdkPayload } from '../payload/types';
import { findSdkKey } from '../store/sdk-connections';

/** `POST /api/eval/{clientKey}`: the connection's payload evaluated for the attributes sent (the handler adds the HTTP answer). */
export async function postRemoteEval({ params, body }: UseCaseInput<typeof contract.postRemoteEval>): Promise<SdkPayload> {
  const connection = await findSdkKey(params.clientKey);
  if (!connection) throw new NotFoundError(`No SDK connection has the key ${params.clientKey}`);
  if (!connection.remoteEvalEnabled) throw new InvalidInputError(`Remote evaluation is not enabled for the SDK connection ${params.clientKey}`);
  const { payload } = await loadSdkPayload(connection);
  return remoteEvaluate(payload, body);
}
