import { endpoint } from '../../shared/api/endpoint';
import { deleteFeatureRevisionLogEntryV2 } from '../../shared/contracts/feature-reviews';
import * as reviews from '../../shared/use-cases/feature-reviews';

export const handler = endpoint(deleteFeatureRevisionLogEntryV2, reviews.deleteFeatureRevisionLogEntryV2);
