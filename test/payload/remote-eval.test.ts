import { MAX_ATTRIBUTE_CHARS } from '../../shared/contracts/sdk-payload';
import { remoteEvaluate } from '../../shared/payload/remote-eval';
import type { SdkPayload } from '../../shared/payload/types';

/**
 * A condition stored before writes refused catastrophic patterns, or one the write check misses
 * (`(a|a)*`), is still evaluated by remote evaluation: V8's linear-time fallback, which remote-eval.ts
 * turns on, keeps it fast. Without it, `^(a+)+$` takes about 1.6 s on 28 characters and doubles with each.
 */
describe('remote evaluation of a catastrophic pattern already stored', () => {
  const payload = (pattern: string): SdkPayload => ({
    status: 200,
    dateUpdated: '2024-05-01T00:00:00.000Z',
    features: { gate: { defaultValue: false, rules: [{ condition: { name: { $regex: pattern } }, force: true }] } },
  });

  it.each(['^(a+)+$', '^(a|a)*$', '^(a*)*b$'])('answers %p at once on the longest attribute taken', async (pattern) => {
    const attack = `${'a'.repeat(MAX_ATTRIBUTE_CHARS - 1)}!`;
    const started = performance.now();

    const missed = remoteEvaluate(payload(pattern), { attributes: { name: attack } });
    const matched = remoteEvaluate(payload(pattern), { attributes: { name: pattern.endsWith('b$') ? 'aab' : 'aaaa' } });

    expect(performance.now() - started).toBeLessThan(2000); // without the fallback: longer than the age of the universe
    expect(missed.features.gate).toEqual({ defaultValue: false });
    expect(matched.features.gate).toEqual({ defaultValue: true });
  });
});
