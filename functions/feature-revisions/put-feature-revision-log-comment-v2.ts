import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionLogCommentV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(putFeatureRevisionLogCommentV2, reviews.putFeatureRevisionLogCommentV2);
