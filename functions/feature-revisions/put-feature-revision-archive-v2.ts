import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionArchiveV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(putFeatureRevisionArchiveV2, revisions.putFeatureRevisionArchiveV2);
