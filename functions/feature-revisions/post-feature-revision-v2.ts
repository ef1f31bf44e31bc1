import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionV2, revisions.postFeatureRevisionV2);
