import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { routes } from '../../shared/contracts/registry';
import { fullPath } from '../../shared/contracts/spec';

const root = join(__dirname, '..', '..');

describe('the endpoint registry', () => {
  it('names each operationId once', () => {
    const ids = routes.map((route) => route.spec.operationId);

    expect(new Set(ids).size).toBe(ids.length);
  });

  it('names each method and path once', () => {
    const keys = routes.map((route) => `${route.spec.method} ${fullPath(route.spec)}`);

    expect(new Set(keys).size).toBe(keys.length);
  });

  it.each(routes.map((route) => [route.spec.operationId, route.handler]))(
    '%s has a handler file %s that exports handler',
    (_id, file) => {
      expect(existsSync(join(root, file))).toBe(true);
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      expect(typeof require(join(root, file)).handler).toBe('function');
    },
  );
});
