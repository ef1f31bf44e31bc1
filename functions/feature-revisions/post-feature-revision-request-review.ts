import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRequestReview } from '../../shared/contracts/feature-revisions-v1';
import * as revisions from '../../shared/use-cases/feature-revisions-v1';

export const handler = endpoint(postFeatureRevisionRequestReview, revisions.postFeatureRevisionRequestReview);
