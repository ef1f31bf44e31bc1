import { createTestOrg, startApi, type Api, type TestOrg } from '../support/api';
import { referenceSchemaValidator } from '../support/reference';

// Feature bodies as GrowthBook scripts send them: environments copied from a GET, unknown keys in
// rules, values in the loose forms GrowthBook coerces.

let api: Api;
let org: TestOrg;

beforeAll(async () => {
  api = await startApi();
  org = await createTestOrg();
});
afterAll(() => api.close());

const post = (path: string, body: unknown) => api.request('POST', `/api/v1${path}`, { key: org.keys.admin, body });
const get = (path: string) => api.request('GET', `/api/v1${path}`, { key: org.keys.admin });
let n = 0;
const key = () => `compat-flag-${++n}`;

describe('environments read from GET and sent back', () => {
  it('are accepted unchanged for a feature created with a display-name owner and no environments', async () => {
    const created = await post('/features', { id: key(), valueType: 'boolean', defaultValue: 'false', owner: 'Jane Doe' });
    const read = (await get(`/features/${created.body.feature.id}`)).body.feature;

    const response = await post(`/features/${read.id}`, { environments: read.environments });

    expect(response.status).toBe(200);
    expect(response.body.feature.environments).toEqual(read.environments);
    expect(response.body.feature.owner).toBe('Jane Doe');
  });

  it('are accepted unchanged with every rule type, and the rules stay as they were', async () => {
    const experiment = (
      await post('/experiments', { trackingKey: `exp-${key()}`, name: 'E', variations: [{ key: '0', name: 'A' }, { key: '1', name: 'B' }] })
    ).body.experiment;
    const [a, b] = experiment.variations.map((v: { variationId: string }) => v.variationId);
    const rules = [
      { type: 'force', value: 'true', condition: '{"country":"US"}', description: 'US' },
      { type: 'rollout', value: 'true', coverage: 0.5, hashAttribute: 'id' },
      { type: 'experiment', trackingKey: 'checkout', values: [{ value: 'false', weight: 0.5 }, { value: 'true', weight: 0.5, name: 'On' }] },
      { type: 'experiment-ref', experimentId: experiment.id, variations: [{ variationId: a, value: 'false' }, { variationId: b, value: 'true' }] },
    ];
    const created = await post('/features', { id: key(), valueType: 'boolean', defaultValue: 'false', environments: { production: { enabled: true, rules } } });
    expect(created.status).toBe(200);
    const read = (await get(`/features/${created.body.feature.id}`)).body.feature;

    const updated = await post(`/features/${read.id}`, { environments: read.environments });
    const again = await post('/features', { id: key(), valueType: 'boolean', defaultValue: 'false', environments: read.environments });

    expect(updated.status).toBe(200);
    expect(updated.body.feature.environments.production.rules).toEqual(read.environments.production.rules);
    expect(again.status).toBe(200);
    expect(again.body.feature.environments.production.rules.map((r: { type: string }) => r.type)).toEqual([
      'force',
      'rollout',
      'experiment',
      'experiment-ref',
    ]);
  });

  it('drop keys GrowthBook does not know, in environments and in rules', async () => {
    const response = await post('/features', {
      id: key(),
      valueType: 'string',
      defaultValue: 'a',
      environments: { production: { enabled: true, color: 'red', rules: [{ type: 'force', value: 'b', note: 'from a UI export' }] } },
    });

    expect(response.status).toBe(200);
    expect(response.body.feature.environments.production.rules[0].note).toBeUndefined();
  });

  it('refuses a draft, which would otherwise be dropped without a word', async () => {
    const response = await post('/features', {
      id: key(),
      valueType: 'boolean',
      defaultValue: 'false',
      environments: { production: { enabled: true, rules: [], draft: { rules: [] } } },
    });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/draft/);
  });
});

describe('experiment rule weights', () => {
  const withWeights = (weights: number[]) => ({
    id: key(),
    valueType: 'boolean',
    defaultValue: 'false',
    environments: { production: { enabled: true, rules: [{ type: 'experiment', values: weights.map((weight, i) => ({ value: String(i === 1), weight })) }] } },
  });

  it('accepts weights that add up to 1 within the 0.01 SDKs allow', async () => {
    expect((await post('/features', withWeights([0.333, 0.333, 0.333]))).status).toBe(200);
  });

  it('refuses weights SDKs would replace by an equal split', async () => {
    const response = await post('/features', withWeights([0.9, 0.9]));

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/weights must add up to 1/);
  });

  it('takes whole bucket versions and refuses others, which sticky bucketing could not block', async () => {
    const withVersions = (versions: Record<string, unknown>) => {
      const body = withWeights([0.5, 0.5]);
      Object.assign(body.environments.production.rules[0]!, versions);
      return body;
    };

    const whole = await post('/features', withVersions({ bucketVersion: 2, minBucketVersion: 1 }));
    const fraction = await post('/features', withVersions({ bucketVersion: 1.5 }));
    const negative = await post('/features', withVersions({ minBucketVersion: -1 }));

    expect(whole.status).toBe(200);
    expect(whole.body.feature.environments.production.rules[0]).toMatchObject({ bucketVersion: 2, minBucketVersion: 1 });
    expect(fraction.status).toBe(400);
    expect(fraction.body.message).toMatch(/bucketVersion/);
    expect(negative.status).toBe(400);
    expect(negative.body.message).toMatch(/minBucketVersion/);
  });
});

describe('values, coerced as GrowthBook coerces them', () => {
  it('stores a boolean given as another string as true, and an empty one as false', async () => {
    const yes = await post('/features', { id: key(), valueType: 'boolean', defaultValue: 'yes' });
    const empty = await post('/features', { id: key(), valueType: 'boolean', defaultValue: '' });

    expect(yes.body.feature.defaultValue).toBe('true');
    expect(empty.body.feature.defaultValue).toBe('false');
  });

  it('repairs JSON with unquoted keys and trailing commas, in the default value and in rules', async () => {
    const response = await post('/features', {
      id: key(),
      valueType: 'json',
      defaultValue: "{color: 'blue', sizes: [1, 2,],}",
      environments: { production: { enabled: true, rules: [{ type: 'force', value: '{enabled: true}' }] } },
    });

    expect(response.status).toBe(200);
    expect(JSON.parse(response.body.feature.defaultValue)).toEqual({ color: 'blue', sizes: [1, 2] });
    expect(JSON.parse(response.body.feature.environments.production.rules[0].value)).toEqual({ enabled: true });
  });

  it('refuses a number GrowthBook does not take', async () => {
    const response = await post('/features', { id: key(), valueType: 'number', defaultValue: '1e3' });

    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/\[defaultValue\] Must be a valid number/);
  });

  it('checks string and number values against a jsonSchema', async () => {
    const schema = JSON.stringify({ type: 'string', enum: ['red', 'blue'] });
    const ok = await post('/features', { id: key(), valueType: 'string', defaultValue: 'red', jsonSchema: schema });
    const bad = await post('/features', { id: key(), valueType: 'string', defaultValue: 'green', jsonSchema: schema });
    const number = await post('/features', { id: key(), valueType: 'number', defaultValue: '150', jsonSchema: JSON.stringify({ type: 'number', maximum: 100 }) });

    expect(ok.status).toBe(200);
    expect(bad.status).toBe(400);
    expect(number.status).toBe(400);
    expect(number.body.message).toMatch(/\[defaultValue\] does not match jsonSchema/);
  });
});

describe('revisions read with withRevisions', () => {
  it("carry GrowthBook's FeatureRevision fields and nothing else, newest first", async () => {
    const valid = referenceSchemaValidator('FeatureRevision');
    const created = await post('/features', {
      id: key(),
      valueType: 'string',
      defaultValue: 'a',
      environments: {
        production: {
          enabled: true,
          rules: [
            { type: 'force', value: 'b', condition: '{"country":"NL"}' },
            { type: 'rollout', value: 'c', coverage: 0.5, hashAttribute: 'id' },
            { type: 'experiment', values: [{ value: 'a', weight: 0.5 }, { value: 'd', weight: 0.5 }] },
          ],
        },
      },
    });
    await post(`/features/${created.body.feature.id}`, { defaultValue: 'e' });

    const response = await get(`/features/${created.body.feature.id}?withRevisions=all`);

    expect(response.status).toBe(200);
    const revisions = response.body.feature.revisions;
    expect(revisions.map((r: { version: number }) => r.version)).toEqual([2, 1]);
    for (const revision of revisions) {
      expect({ version: revision.version, valid: valid(revision), errors: valid.errors ?? null }).toEqual({ version: revision.version, valid: true, errors: null });
      expect(Object.keys(revision.definitions).sort()).toEqual(Object.keys(response.body.feature.environments).sort());
    }
  });
});
