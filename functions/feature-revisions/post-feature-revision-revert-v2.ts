import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRevertV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(postFeatureRevisionRevertV2, revisions.postFeatureRevisionRevertV2);
