import { endpoint } from '../../shared/api/endpoint';
import { getSettings } from '../../shared/contracts/settings';
import * as settings from '../../shared/use-cases/settings';

export const handler = endpoint(getSettings, settings.getSettings);
