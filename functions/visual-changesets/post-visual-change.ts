import { endpoint } from '../../shared/api/endpoint';
import { postVisualChange } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(postVisualChange, visualChangesets.postVisualChange);
