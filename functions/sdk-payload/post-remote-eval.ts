import { endpoint } from '../../shared/api/endpoint';
import { postRemoteEval } from '../../shared/contracts/sdk-payload';
import { remoteEvalResponse } from '../../shared/payload/http';
import * as sdkPayload from '../../shared/use-cases/sdk-payload';

export const handler = endpoint(postRemoteEval, async (request) => remoteEvalResponse(await sdkPayload.postRemoteEval(request)));
