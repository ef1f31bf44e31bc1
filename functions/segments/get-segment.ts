import { endpoint } from '../../shared/api/endpoint';
import { getSegment } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(getSegment, segments.getSegment);
