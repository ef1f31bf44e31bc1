import type { Dimension } from '../contracts/dimensions';
import { repository } from '../db/repository';

/** Dimensions; lists filter on datasource. */
export const dimensions = repository<Dimension>({
  type: 'DIMENSION',
  label: 'Dimension',
  listTags: (dimension) => [`datasource:${dimension.datasourceId}`],
});
