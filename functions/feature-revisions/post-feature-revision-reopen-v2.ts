import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionReopenV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionReopenV2, revisions.postFeatureRevisionReopenV2);
