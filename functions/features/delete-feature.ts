import { endpoint } from '../../shared/api/endpoint';
import { deleteFeature } from '../../shared/contracts/features';
import * as features from '../../shared/use-cases/features';

export const handler = endpoint(deleteFeature, features.deleteFeature);
