import { endpoint } from '../../shared/api/endpoint';
import { toggleFeatureV2 } from '../../shared/contracts/features-v2';
import * as features from '../../shared/use-cases/features-v2';

export const handler = endpoint(toggleFeatureV2, features.toggleFeatureV2);
