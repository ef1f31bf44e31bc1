import { endpoint } from '../../shared/api/endpoint';
import { serveSdkPayload } from '../../shared/payload/http';
import { getFeaturesForSdk } from '../../shared/contracts/sdk-payload';

export const handler = endpoint(getFeaturesForSdk, async ({ params, event }) => serveSdkPayload(params.clientKey, event.headers));
