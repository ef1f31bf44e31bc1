import { writeFileSync } from 'node:fs';
import path from 'node:path';

/** A small, fast, seeded PRNG (mulberry32): the same seed makes the same data set on every run. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export interface Exposure {
  user_id: string;
  timestamp: number;
  experiment_id: string;
  variation_id: string;
  country: string;
}
export interface FactEvent {
  user_id: string;
  timestamp: number;
  event_type: 'purchase' | 'pageview';
  amount: number;
}

export const HOUR = 3_600_000;
export const DAY = 24 * HOUR;

/**
 * A synthetic experiment with a known effect. Treatment ("1") converts more often and spends more.
 * It holds what a real warehouse holds and the engine must handle: repeated exposures, units seen in
 * both variations, exposures outside the phase and of another experiment, events before exposure
 * (the CUPED pre-period), purchases outside the 72-hour conversion window and after the phase, and
 * a few very large purchases (for capping).
 */
export function syntheticExperiment(options: { seed: number; units: number; trackingKey: string; start: number; end: number }) {
  const random = seededRandom(options.seed);
  const { start, end, trackingKey } = options;
  const exposures: Exposure[] = [];
  const events: FactEvent[] = [];
  const countries = ['US', 'DE', 'FR'];
  const amount = () => Math.round((5 + random() * 60 + (random() < 0.01 ? 5000 : 0)) * 100) / 100;
  for (let i = 0; i < options.units; i++) {
    const user = `u${i}`;
    const variation = random() < 0.5 ? '0' : '1';
    const first = start + Math.floor(random() * (end - start - HOUR));
    const country = countries[Math.floor(random() * countries.length)]!;
    exposures.push({ user_id: user, timestamp: first, experiment_id: trackingKey, variation_id: variation, country });
    if (random() < 0.3) exposures.push({ user_id: user, timestamp: first + Math.floor(random() * 2 * DAY), experiment_id: trackingKey, variation_id: variation, country });
    if (random() < 0.02) exposures.push({ user_id: user, timestamp: first + HOUR, experiment_id: trackingKey, variation_id: variation === '0' ? '1' : '0', country });
    if (random() < 0.05) exposures.push({ user_id: user, timestamp: start - DAY, experiment_id: trackingKey, variation_id: variation, country });
    if (random() < 0.05) exposures.push({ user_id: user, timestamp: first, experiment_id: 'another-experiment', variation_id: '1', country });

    // A unit's propensity drives both its pre-period and its in-experiment activity, which CUPED exploits.
    const propensity = random();
    const lift = variation === '1' ? 1.25 : 1;
    for (let k = 0; k < Math.floor(propensity * 4); k++) {
      events.push({ user_id: user, timestamp: first - Math.floor(random() * 13 * DAY) - 1, event_type: 'purchase', amount: amount() });
    }
    if (random() < 0.15 * propensity * lift + 0.02) {
      const purchases = 1 + Math.floor(random() * 3);
      for (let k = 0; k < purchases; k++) {
        events.push({ user_id: user, timestamp: first + Math.floor(random() * 70 * HOUR), event_type: 'purchase', amount: Math.round(amount() * lift * 100) / 100 });
      }
    }
    if (random() < 0.1) events.push({ user_id: user, timestamp: first + 100 * HOUR, event_type: 'purchase', amount: amount() });
    if (random() < 0.05) events.push({ user_id: user, timestamp: end + 5 * DAY, event_type: 'purchase', amount: amount() });
    const views = 1 + Math.floor(random() * 6 * lift);
    for (let k = 0; k < views; k++) {
      events.push({ user_id: user, timestamp: first + Math.floor(random() * 10 * DAY), event_type: 'pageview', amount: 0 });
    }
    if (random() < 0.5) events.push({ user_id: user, timestamp: first - Math.floor(random() * 5 * DAY) - 1, event_type: 'pageview', amount: 0 });
  }
  return { exposures, events };
}

/** `YYYY-MM-DD HH:MM:SS.mmm` in UTC, which DuckDB reads as a TIMESTAMP. */
export const sqlTime = (ms: number) => new Date(ms).toISOString().slice(0, 23).replace('T', ' ');

/** Writes rows as CSV (header from the first row's keys; `timestamp` as a SQL time). */
export function writeCsv(file: string, rows: object[]): void {
  const columns = Object.keys(rows[0] ?? {});
  const lines = [columns.join(',')];
  for (const row of rows) {
    lines.push(columns.map((c) => (c === 'timestamp' ? sqlTime((row as Record<string, number>)[c]!) : String((row as Record<string, unknown>)[c]))).join(','));
  }
  writeFileSync(file, `${lines.join('\n')}\n`);
}

/** Writes the data set into `dir` as `exposures.csv` and `events/events.csv`. */
export function writeSyntheticFiles(dir: string, data: ReturnType<typeof syntheticExperiment>): void {
  writeCsv(path.join(dir, 'exposures.csv'), data.exposures);
  writeCsv(path.join(dir, 'events', 'events.csv'), data.events);
}
