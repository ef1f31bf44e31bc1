import { endpoint } from '../../shared/api/endpoint';
import { getVisualChangeset } from '../../shared/contracts/visual-changesets';
import * as visualChangesets from '../../shared/use-cases/visual-changesets';

export const handler = endpoint(getVisualChangeset, visualChangesets.getVisualChangeset);
