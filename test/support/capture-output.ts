/** Everything written to stdout, stderr or the console while `act` runs (and kept out of the test output). */
export async function captureOutput(act: () => Promise<void>): Promise<string> {
  const written: string[] = [];
  const record = (...args: unknown[]) => {
    written.push(args.map((arg) => (typeof arg === 'string' ? arg : arg instanceof Uint8Array ? Buffer.from(arg).toString() : JSON.stringify(arg))).join(' '));
  };
  const streams = [process.stdout, process.stderr] as const;
  const writes = streams.map((stream) => stream.write);
  const consoleMethods = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;
  const originals = consoleMethods.map((method) => console[method]);
  streams.forEach((stream) => {
    stream.write = ((chunk: unknown) => {
      record(chunk);
      return true;
    }) as typeof stream.write;
  });
  consoleMethods.forEach((method) => (console[method] = record));
  try {
    await act();
  } finally {
    streams.forEach((stream, i) => (stream.write = writes[i]));
    consoleMethods.forEach((method, i) => (console[method] = originals[i]));
  }
  return written.join('\n');
}
