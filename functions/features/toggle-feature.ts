import { endpoint } from '../../shared/api/endpoint';
import { toggleFeature } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(toggleFeature, features.toggleFeature);
