import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionHoldoutV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(putFeatureRevisionHoldoutV2, edits.putFeatureRevisionHoldoutV2);
