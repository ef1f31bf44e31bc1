import { endpoint } from '../../shared/api/endpoint';
import { postFeatureRevisionRebasePreviewV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(postFeatureRevisionRebasePreviewV2, edits.postFeatureRevisionRebasePreviewV2);
