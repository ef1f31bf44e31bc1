import type { StoredSnapshot } from '../contracts/snapshots';
import { repository } from '../db/repository';

export const snapshots = repository<StoredSnapshot>({
  type: 'SNAPSHOT',
  label: 'Snapshot',
  listTags: (snapshot) => [`experiment:${snapshot.experiment}`],
});
