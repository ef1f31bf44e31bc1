import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionToggleV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionToggleV2, revisions.postFeatureRevisionToggleV2);
