import { readFileSync } from 'node:fs';
import { performanceDocPath, readResults, renderPerformanceDoc } from '../../bench/performance-doc';

describe('docs/performance.md', () => {
  it('is what `npm run docs:performance` renders from bench/results/*.json (run it after the benches change)', () => {
    const onDisk = readFileSync(performanceDocPath, 'utf8');

    const rendered = renderPerformanceDoc();

    expect(onDisk).toBe(rendered);
  });

  it('follows the results files: another measurement renders another page', () => {
    const results = readResults();
    const changed = structuredClone(results);
    changed.load.rows[1]['req/s'] = 4321;
    changed.load.rows[1]['vs bare'] = 0.5;

    const page = renderPerformanceDoc(changed);

    expect(page).not.toBe(renderPerformanceDoc(results));
    expect(page).toMatch(/\| local server under load, read \|[^\n]*4,321 req\/s, 0\.50×[^\n]*\| \*\*not met\*\* \|/);
  });

  it('prints the machine a results file records', () => {
    const results = readResults();
    results.snapshot.measuredAt = '2026-11-24T03:59:52.188Z';
    results.snapshot.machine = { cpus: 8, cpuModel: 'Test CPU', memoryGiB: 16, node: 'v20.1.0', platform: 'linux' };

    const page = renderPerformanceDoc(results);

    expect(page).toContain('_Measured 2026-11-24; 8 CPUs (Test CPU), 16 GiB, Node 20.1.0, linux. Source: `bench/results/snapshot.json`._');
  });
});
