import { endpoint } from '../../shared/api/endpoint';
import { putVisualChangeset } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(putVisualChangeset, visualChangesets.putVisualChangeset);
