import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionSubmitReviewV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(postFeatureRevisionSubmitReviewV2, reviews.postFeatureRevisionSubmitReviewV2);
