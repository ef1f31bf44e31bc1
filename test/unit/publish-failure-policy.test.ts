import { backoffMinutes, decidePublishFailure, SCHEDULED_PUBLISH_MAX_ATTEMPTS } from '../../shared/domain/publish-failure-policy';

const now = new Date('2041-01-01T09:00:00.000Z');

describe('a failed scheduled publish', () => {
  it('is tried again after 1, 2, 4, 8, 16 minutes, then every 30', () => {
    const minutes = Array.from({ length: 9 }, (_, i) => backoffMinutes(i + 1));

    expect(minutes).toEqual([1, 2, 4, 8, 16, 30, 30, 30, 30]);
  });

  it('retries a transient failure below the cap, at now plus the backoff', () => {
    const outcome = decidePublishFailure({ attempts: 3, terminal: false, now });

    expect(outcome).toEqual({ action: 'retry', attempts: 3, nextAttemptAt: '2041-01-01T09:04:00.000Z' });
  });

  it('gives up on the 10th failure, and at once on a terminal one', () => {
    expect(SCHEDULED_PUBLISH_MAX_ATTEMPTS).toBe(10);
    expect(decidePublishFailure({ attempts: 10, terminal: false, now })).toEqual({ action: 'give-up', attempts: 10, terminal: false });
    expect(decidePublishFailure({ attempts: 1, terminal: true, now })).toEqual({ action: 'give-up', attempts: 1, terminal: true });
  });
});
