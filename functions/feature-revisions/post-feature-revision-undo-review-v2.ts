import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionUndoReviewV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(postFeatureRevisionUndoReviewV2, reviews.postFeatureRevisionUndoReviewV2);
