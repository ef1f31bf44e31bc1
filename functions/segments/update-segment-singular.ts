import { endpoint } from '../../shared/api/endpoint';
import { updateSegmentSingular } from '../../shared/contracts/segments';
import { applySegmentUpdate } from './update-segment';

export const handler = endpoint(updateSegmentSingular, applySegmentUpdate);
