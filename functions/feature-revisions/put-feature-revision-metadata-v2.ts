import { endpoint } from '../../shared/api/endpoint';
import { putFeatureRevisionMetadataV2 } from '../../shared/contracts/feature-revision-edits';
import * as edits from '../../shared/use-cases/feature-revision-edits';

export const handler = endpoint(putFeatureRevisionMetadataV2, edits.putFeatureRevisionMetadataV2);
