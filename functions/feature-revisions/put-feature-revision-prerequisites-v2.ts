import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionPrerequisitesV2 } from '../../shared/contracts/feature-revisions';
import * as revisions from '../../shared/use-cases/feature-revisions';

export const handler = endpoint(putFeatureRevisionPrerequisitesV2, revisions.putFeatureRevisionPrerequisitesV2);
