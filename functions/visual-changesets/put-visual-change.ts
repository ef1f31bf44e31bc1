import { endpoint } from '../../shared/api/endpoint';
import { putVisualChange } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(putVisualChange, visualChangesets.putVisualChange);
