import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionDefaultValueV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(putFeatureRevisionDefaultValueV2, revisions.putFeatureRevisionDefaultValueV2);
