import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRebaseV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionRebaseV2, revisions.postFeatureRevisionRebaseV2);
