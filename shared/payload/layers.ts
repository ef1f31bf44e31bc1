/**
 * Where each file of the SDK payload sits among the repository's layers, top to bottom
 * `functions → shared/api → shared/use-cases → shared/store → shared/db → shared/domain → shared/contracts`:
 * a file imports only from its own level and below, so nothing imports upward. The payload cannot be
 * one layer: stores carry its version bumps in their own transactions (`write.ts`, at shared/db's
 * level, below them), while serving a connection reads many stores (`serve.ts`, above them).
 * Read by the layering tests; see README.md in this folder.
 */
export const PAYLOAD_LAYERS = {
  /** Pure: no I/O, imports only shared/domain, shared/contracts, shared/errors and each other. */
  domain: [
    'types',
    'scope',
    'entries',
    'conditions',
    'hashing',
    'namespaces',
    'rules',
    'holdouts',
    'auto-experiments',
    'saved-group-references',
    'prerequisites',
    'scrub',
    'sdk-versions',
    'sdk-version-table',
    'environment-inheritance',
    'encryption',
    'body',
    'remote-eval',
    'proxy-push',
    'layers',
  ],
  /** The write entry point and what it needs: item builders and version bumps over shared/db, reading no store. */
  db: ['versions', 'write', 'state'],
  /** The read side: reads stores (connections, organizations, projects, holdouts, saved groups...). */
  'use-cases': ['references', 'auto-experiment-sources', 'serve', 'definitions', 'inherited-entries', 'migration'],
  /** HTTP: headers, ETag revalidation, compression, which route serves which connection; the proxy push's own request. */
  api: ['http', 'proxy-host'],
} as const;
