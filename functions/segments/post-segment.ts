import { endpoint } from '../../shared/api/endpoint';
import { postSegment } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(postSegment, segments.postSegment);
