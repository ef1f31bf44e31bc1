import { endpoint } from '../../shared/api/endpoint';
import { getHealthcheck } from '../../shared/contracts/system';

// No table read, as GrowthBook's: a probe every few seconds would cost reads, and the SDK payload
// (served from the CDN) stays up when the table has a bad moment, so that is no reason to say unhealthy.
export const handler = endpoint(getHealthcheck, async () => ({ status: 200 as const, healthy: true as const }));
