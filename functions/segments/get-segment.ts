import { endpoint } from '../../shared/api/endpoint';
import { getSegment } from '../../shared/contracts/segments';
import { segments } from '../../shared/store/segments';

export const handler = endpoint(getSegment, async ({ params, auth }) => ({
  segment: await segments.get(auth.orgId, params.id),
}));
