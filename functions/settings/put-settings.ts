import { endpoint } from '../../shared/api/endpoint';
import { putSettings } from '../../shared/contracts/settings';
import * as settings from '../../shared/use-cases/settings';

export const handler = endpoint(putSettings, settings.putSettings);
