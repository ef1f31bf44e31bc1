import { endpoint } from '../../shared/api/endpoint';
import { updateSegmentSingular } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(updateSegmentSingular, segments.updateSegment);
