import type { FeatureContent } from '../../shared/domain/features';
import { environmentParents, servedProjects, withInheritedSettings } from '../../shared/payload/environment-inheritance';

type Settings = FeatureContent['environments'];
const feature = (environments: Settings) => ({ environments });
const on = (value: string): Settings[string] => ({ enabled: true, rules: [{ id: value, type: 'force' as const, value, enabled: true, description: '' }] });

describe('environment inheritance', () => {
  const parents = environmentParents([{ id: 'prod' }, { id: 'staging', parent: 'prod' }, { id: 'qa', parent: 'staging' }, { id: 'a', parent: 'b' }, { id: 'b', parent: 'a' }]);

  it("fills an environment without settings from its nearest ancestor's", () => {
    const inherited = withInheritedSettings(feature({ prod: on('p') }), parents).environments;

    expect(inherited.staging).toEqual(on('p'));
    expect(inherited.qa).toEqual(on('p'));
  });

  it('keeps the settings an environment has of its own, and its children take those', () => {
    const inherited = withInheritedSettings(feature({ prod: on('p'), staging: { enabled: false, rules: [] } }), parents).environments;

    expect(inherited.staging).toEqual({ enabled: false, rules: [] });
    expect(inherited.qa).toEqual({ enabled: false, rules: [] });
  });

  it('inherits nothing through a cycle of parents', () => {
    expect(withInheritedSettings(feature({ prod: on('p') }), parents).environments).not.toHaveProperty('a');
  });
});

describe("an environment's projects", () => {
  it.each([
    [[], [], []],
    [['web'], [], ['web']],
    [[], ['web'], ['web']],
    [['web', 'app'], ['web', 'api'], ['web']],
    [['app'], ['web'], null],
  ])('a connection with %j in an environment with %j is served %j', (connection, environment, expected) => {
    expect(servedProjects(connection, environment)).toEqual(expected);
  });
});
