import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionLatestV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(getFeatureRevisionLatestV2, revisions.getFeatureRevisionLatestV2);
