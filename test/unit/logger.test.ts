import type { Context } from 'aws-lambda';
import { captureOutput } from '../support/capture-output';

/** A fresh logger module, read with LOG_LEVEL set as a Lambda container sets it before any module loads. */
function loggerAt(level: string | undefined): typeof import('../../shared/logger').logger {
  const saved = process.env.LOG_LEVEL;
  if (level === undefined) delete process.env.LOG_LEVEL;
  else process.env.LOG_LEVEL = level;
  try {
    let loaded!: typeof import('../../shared/logger').logger;
    jest.isolateModules(() => {
      loaded = (require('../../shared/logger') as typeof import('../../shared/logger')).logger;
    });
    return loaded;
  } finally {
    process.env.LOG_LEVEL = saved;
  }
}

const lines = (output: string) => output.split('\n').filter((line) => line.startsWith('{')).map((line) => JSON.parse(line));

const context = (awsRequestId: string) =>
  ({ awsRequestId, functionName: 'getFeature', invokedFunctionArn: 'arn:aws:lambda:eu-west-1:1:function:getFeature', memoryLimitInMB: '1024' }) as Context;

describe('the logger', () => {
  it("writes one JSON line per entry with Powertools' keys, the invocation's and the entry's own", async () => {
    const logger = loggerAt('INFO');

    const output = await captureOutput(async () => {
      logger.info('before any invocation', { a: 1 });
      logger.addContext(context('req-1'));
      logger.info('first', { operationId: 'getFeature' });
      logger.addContext(context('req-2'));
      logger.warn('second');
    });

    const [before, first, second] = lines(output);
    expect(before).toEqual({ level: 'INFO', message: 'before any invocation', timestamp: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/), service: 'switchyard', a: 1 });
    expect(first).toMatchObject({
      level: 'INFO',
      message: 'first',
      service: 'switchyard',
      cold_start: true,
      function_name: 'getFeature',
      function_request_id: 'req-1',
      function_memory_size: '1024',
      operationId: 'getFeature',
    });
    expect(second).toMatchObject({ level: 'WARN', cold_start: false, function_request_id: 'req-2' });
  });

  it('leaves out entries below LOG_LEVEL, and logs at INFO when it is unset', async () => {
    const atWarn = loggerAt('warn');
    const unset = loggerAt(undefined);

    const output = await captureOutput(async () => {
      atWarn.info('hidden');
      atWarn.error('shown');
      unset.debug('hidden too');
      unset.info('shown too');
    });

    expect(lines(output).map((line) => line.message)).toEqual(['shown', 'shown too']);
  });

  it('writes an error with its name, location, message, stack and cause; bigints as text; a cycle once', async () => {
    const logger = loggerAt('INFO');
    const cause = new Error('disk full');
    const error = Object.assign(new Error('write failed', { cause }), { code: 'E_WRITE' });
    const cyclic: Record<string, unknown> = { size: 10n };
    cyclic.self = cyclic;

    const output = await captureOutput(async () => logger.error('Unhandled error', { error, cyclic }));

    const [entry] = lines(output);
    expect(entry.error).toEqual({
      name: 'Error',
      location: expect.stringMatching(/logger\.test\.ts:\d+$/),
      message: 'write failed',
      stack: expect.stringContaining('Error: write failed'),
      cause: { name: 'Error', location: expect.stringMatching(/logger\.test\.ts:\d+$/), message: 'disk full', stack: expect.any(String) },
      code: 'E_WRITE',
    });
    expect(entry.cyclic).toEqual({ size: '10', self: '[Circular]' });
  });
});
