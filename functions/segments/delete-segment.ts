import { endpoint } from '../../shared/api/endpoint';
import { deleteSegment } from '../../shared/contracts/segments';
import * as segments from '../../shared/use-cases/segments';

export const handler = endpoint(deleteSegment, segments.deleteSegment);
