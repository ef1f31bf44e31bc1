import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRecallReviewV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(postFeatureRevisionRecallReviewV2, reviews.postFeatureRevisionRecallReviewV2);
