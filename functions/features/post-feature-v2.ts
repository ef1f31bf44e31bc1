import { endpoint } from '../../shared/api/endpoint';
import { postFeatureV2 } from '../../shared/contracts/features-v2';
import * as features from '../../shared/use-cases/features-v2';

export const handler = endpoint(postFeatureV2, features.postFeatureV2);
