/**
 * Runs one built bundle in a fresh Node process (bench/bundle-runner.mjs), as Lambda would: used by
 * the cold-start bench and by test/infra/bundle-invocation.test.ts.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { promisify } from 'node:util';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

const run = promisify(execFile);

export interface BundleRun {
  /** Since the process started: boot, load and the first request. */
  coldMs: number;
  /** CPU time (user + system) the process had used by then; less sensitive to a busy machine. */
  coldCpuMs: number;
  loadMs: number;
  /** Each warm request's time, in ms. */
  warm: number[];
  statuses: number[];
  first: APIGatewayProxyStructuredResultV2;
  /** What the handler wrote to stdout and stderr (the logger's JSON lines), line by line. */
  logLines: string[];
  /** With `countInstructions`, the instructions the whole process ran (boot, load, first request). */
  coldInstructions?: number;
}

/**
 * With BENCH_CPU_PROF=<dir>, each run writes a V8 CPU profile under `<dir>/<function folder>/`
 * (open it in Chrome DevTools): to see where a cold start's time goes.
 */
const profile = (bundle: string) =>
  process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${join(process.env.BENCH_CPU_PROF, basename(dirname(bundle)))}`] : [];

/**
 * With `countInstructions`, the run goes under valgrind, which counts the instructions the process
 * runs: unlike time, the count hardly moves when other work shares the machine, so ratios to the bare
 * handler can be compared between runs. It is about 40 times slower.
 */
const valgrind = ['valgrind', '--tool=callgrind', '--callgrind-out-file=/dev/null', '--smc-check=all-non-file'];
const instructionsIn = (stderr: string) => Number(stderr.match(/I\s+refs:\s+([\d,]+)/)?.[1].replaceAll(',', ''));

const withoutNodeOptions = ({ NODE_OPTIONS: _, ...env }: NodeJS.ProcessEnv) => env;

/** Serves `invocation` ({ event, context }) once cold and `warm` more times from the bundle file. */
export async function runBundle(
  bundle: string,
  invocation: unknown,
  options: { warm?: number; env?: Record<string, string>; countInstructions?: boolean } = {},
): Promise<BundleRun> {
  const dir = mkdtempSync(join(tmpdir(), 'switchyard-invocation-'));
  try {
    const file = join(dir, 'invocation.json');
    writeFileSync(file, JSON.stringify(invocation));
    const warm = options.warm ?? 0;
    const command = [process.execPath, ...profile(bundle), join(__dirname, 'bundle-runner.mjs'), bundle, file, String(warm)];
    const counted = options.countInstructions === true;
    const [program, ...args] = counted ? [...valgrind, ...command] : command;
    const { stdout, stderr } = await run(program, args, {
      // As on Lambda (infra/lambda.ts): no NODE_OPTIONS; the logger maps logged stacks itself.
      env: { ...withoutNodeOptions(process.env), ...options.env },
      maxBuffer: 64 * 1024 * 1024,
    });
    const lines = stdout.trimEnd().split('\n');
    const result = JSON.parse(lines.pop()!);
    const logLines = [...lines, ...stderr.split('\n').filter((line) => !/^==\d+==/.test(line))].filter(Boolean);
    return { ...result, logLines, ...(counted ? { coldInstructions: instructionsIn(stderr) } : {}) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
