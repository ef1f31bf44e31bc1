import { endpoint } from '../../shared/api/endpoint';
import { serveSdkPayload } from '../../shared/api/sdk-payload';
import { getSdkPayload } from '../../shared/contracts/sdk-payload';

export const handler = endpoint(getSdkPayload, async ({ params, auth, event }) =>
  serveSdkPayload(params.key, event.headers, { orgId: auth.orgId }),
);
