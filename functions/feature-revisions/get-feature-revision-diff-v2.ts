import { endpoint } from '../../shared/api/endpoint';
import { getFeatureRevisionDiffV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(getFeatureRevisionDiffV2, edits.getFeatureRevisionDiffV2);
