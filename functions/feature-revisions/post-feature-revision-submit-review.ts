import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionSubmitReview } from '../../shared/contracts/feature-revisions-v1';
import * as revisions from '../../shared/use-cases/feature-revisions-v1';

export const handler = endpoint(postFeatureRevisionSubmitReview, revisions.postFeatureRevisionSubmitReview);
