import { allInOrder, startEarly } from '../../shared/concurrency';
import { criticalPath } from '../../shared/db/client';

/** A promise settled only when the test says so, so the order of events never depends on timing. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: Error) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

describe('allInOrder', () => {
  it('answers every value in argument order', async () => {
    const first = deferred<number>();
    const second = deferred<string>();
    const all = allInOrder([first.promise, second.promise, undefined]);
    second.resolve('b');
    first.resolve(1);
    await expect(all).resolves.toEqual([1, 'b', undefined]);
  });

  it('throws the first failure in argument order, even when a later one failed first', async () => {
    const first = deferred<number>();
    const second = deferred<number>();
    const all = allInOrder([first.promise, second.promise]);
    second.reject(new Error('second'));
    first.reject(new Error('first'));
    await expect(all).rejects.toThrow('first');
  });
});

describe('startEarly', () => {
  it('hands the failure to whoever awaits it', async () => {
    const read = deferred<number>();
    const started = startEarly(read.promise);
    read.reject(new Error('unreachable'));
    await expect(started).rejects.toThrow('unreachable');
  });
});

describe('criticalPath', () => {
  const call = (start: number, end: number) => ({ command: 'GetItemCommand', start, end });

  it('counts calls one after another', () => {
    expect(criticalPath([call(0, 10), call(10, 20), call(21, 30)])).toBe(3);
  });

  it('counts calls sent together once', () => {
    expect(criticalPath([call(0, 10), call(1, 12), call(2, 8), call(13, 20)])).toBe(2);
  });

  it('follows the longest chain when parallel reads differ in length', () => {
    // A query then a batch get, alongside one get: two on the critical path.
    expect(criticalPath([call(0, 5), call(0, 3), call(6, 9)])).toBe(2);
  });

  it('is zero without calls', () => {
    expect(criticalPath([])).toBe(0);
  });
});
