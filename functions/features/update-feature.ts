import { endpoint } from '../../shared/api/endpoint';
import { updateFeature } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(updateFeature, features.updateFeature);
