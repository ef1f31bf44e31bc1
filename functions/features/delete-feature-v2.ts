import { endpoint } from '../../shared/api/endpoint';
import { deleteFeatureV2 } from '../../shared/contracts/features-v2';
import * as features from '../../shared/use-cases/features-v2';

export const handler = endpoint(deleteFeatureV2, features.deleteFeatureV2);
