import type { Segment } from '../contracts/segments';
import { factTableTags } from '../domain/fact-tables';
import { repository } from '../db/repository';

export const segments = repository<Segment>({
  type: 'SEGMENT',
  label: 'Segment',
  listTags: (segment) => [
    `datasource:${segment.datasourceId}`,
    ...(segment.projects ?? []).map((project) => `project:${project}`),
    ...(segment.factTableId ? factTableTags(segment.factTableId, segment.filters ?? []) : []),
  ],
});
