import { endpoint } from '../../shared/api/endpoint';
import { putApprovalSettings } from '../../shared/contracts/settings';
import * as settings from '../../shared/use-cases/settings';

export const handler = endpoint(putApprovalSettings, settings.putApprovalSettings);
