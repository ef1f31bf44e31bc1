import { endpoint } from '../../shared/api/endpoint';
import { updateSegment } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(updateSegment, segments.updateSegment);
