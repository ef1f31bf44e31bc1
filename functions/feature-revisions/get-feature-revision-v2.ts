import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(getFeatureRevisionV2, revisions.getFeatureRevisionV2);
