import { endpoint } from '../../shared/api/endpoint';
import { serveSdkPayload } from '../../shared/payload/http';
import { getSdkPayload } from '../../shared/contracts/sdk-payload';

export const handler = endpoint(getSdkPayload, async ({ params, auth, event }) =>
  serveSdkPayload(params.key, event.headers, { orgId: auth.orgId }),
);
