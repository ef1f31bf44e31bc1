import { endpoint } from '../../shared/api/endpoint';
import { listSegments } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(listSegments, segments.listSegments);
