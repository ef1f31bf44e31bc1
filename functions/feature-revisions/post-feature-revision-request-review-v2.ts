import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRequestReviewV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(postFeatureRevisionRequestReviewV2, reviews.postFeatureRevisionRequestReviewV2);
