import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionLogV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(getFeatureRevisionLogV2, reviews.getFeatureRevisionLogV2);
