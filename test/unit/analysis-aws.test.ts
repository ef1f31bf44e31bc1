import { rowsFromResultPages } from '../../shared/analysis/aws/athena-results';
import { executionName } from '../../shared/analysis/aws/start-run';
import { failureMessage, failureOf } from '../../shared/analysis/aws/workflow';

const columns = [
  { Name: 'variation', Type: 'varchar' },
  { Name: 'users', Type: 'bigint' },
  { Name: 'main_sum', Type: 'double' },
  { Name: 'main_sum_squares', Type: 'decimal(38,6)' },
];
const row = (...cells: (string | undefined)[]) => ({ Data: cells.map((value) => (value === undefined ? {} : { VarCharValue: value })) });

describe('rowsFromResultPages', () => {
  it('drops the header row, keys cells by column and turns numeric columns into numbers', () => {
    const pages = [
      {
        ResultSet: {
          ResultSetMetadata: { ColumnInfo: columns },
          Rows: [row('variation', 'users', 'main_sum', 'main_sum_squares'), row('0', '1200', '31.5', '48.25')],
        },
      },
    ];

    expect(rowsFromResultPages(pages)).toEqual([{ variation: '0', users: 1200, main_sum: 31.5, main_sum_squares: 48.25 }]);
  });

  it('reads every page, where only the first carries the header, and makes missing cells null', () => {
    const pages = [
      { ResultSet: { ResultSetMetadata: { ColumnInfo: columns }, Rows: [row('variation', 'users', 'main_sum', 'main_sum_squares'), row('0', '10', '1', '1')] } },
      { ResultSet: { Rows: [row('1', '12', undefined, '2.5')] } },
    ];

    expect(rowsFromResultPages(pages)).toEqual([
      { variation: '0', users: 10, main_sum: 1, main_sum_squares: 1 },
      { variation: '1', users: 12, main_sum: null, main_sum_squares: 2.5 },
    ]);
  });

  it('keeps a varchar that looks like a number as text', () => {
    const pages = [{ ResultSet: { ResultSetMetadata: { ColumnInfo: [{ Name: 'dimension', Type: 'varchar' }] }, Rows: [row('dimension'), row('007')] } }];

    expect(rowsFromResultPages(pages)).toEqual([{ dimension: '007' }]);
  });

  it('answers no rows for an empty result', () => {
    expect(rowsFromResultPages([{ ResultSet: { ResultSetMetadata: { ColumnInfo: columns }, Rows: [row('variation', 'users', 'main_sum', 'main_sum_squares')] } }])).toEqual([]);
  });
});

describe('failureMessage', () => {
  it('names the failed query and gives Athena\'s reason from the execution it failed with', () => {
    const athena = JSON.stringify({ QueryExecution: { Status: { State: 'FAILED', StateChangeReason: "COLUMN_NOT_FOUND: line 3:8: Column 'amount' cannot be resolved" } } });

    expect(failureMessage({ Error: 'Athena.AmazonAthenaException', Cause: `Query q_orders failed: ${athena}` })).toBe(
      "Query q_orders failed on Athena: COLUMN_NOT_FOUND: line 3:8: Column 'amount' cannot be resolved",
    );
  });

  it('gives a Lambda error\'s message', () => {
    const cause = JSON.stringify({ errorType: 'NotFoundError', errorMessage: 'Data source ds_1 not found', trace: [] });

    expect(failureMessage({ Error: 'NotFoundError', Cause: cause })).toBe('Data source ds_1 not found');
  });

  it('keeps a cause that is not JSON, and says when a step timed out', () => {
    expect(failureMessage({ Error: 'States.TaskFailed', Cause: 'Access denied' })).toBe('Access denied');
    expect(failureMessage({ Error: 'States.Timeout' })).toMatch(/longer than its time limit/);
  });
});

describe('failureOf', () => {
  it('reads the snapshot from a caught error', () => {
    expect(failureOf({ orgId: 'org_1', snapshotId: 'snp_1', error: { Error: 'X', Cause: 'broken' } })).toEqual({ orgId: 'org_1', snapshotId: 'snp_1', message: 'broken' });
  });

  it('reads the snapshot from the status event of a timed-out execution', () => {
    const event = { detail: { status: 'TIMED_OUT', input: JSON.stringify({ orgId: 'org_1', snapshotId: 'snp_1' }) } };

    expect(failureOf(event)).toEqual({ orgId: 'org_1', snapshotId: 'snp_1', message: expect.stringMatching(/did not finish within the state machine time limit/) });
  });
});

describe('executionName', () => {
  it('is the snapshot id when Step Functions accepts it, and a safe form of it otherwise', () => {
    expect(executionName('snp_Ab-9')).toBe('snp_Ab-9');
    expect(executionName('snp.a/b')).toBe('snp_a_b');
    expect(executionName('x'.repeat(100))).toHaveLength(80);
  });
});
