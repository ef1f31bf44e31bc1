import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Stack, Validations } from 'aws-cdk-lib';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { addChecks } from '../../infra/nag';
import { cdkContext } from './synth';

const repoRoot = join(__dirname, '..', '..');

interface Synth {
  exitCode: number | null;
  output: string;
  violations: { pluginName: string; ruleName: string; severity: string }[];
}

/**
 * Runs infra/app.ts the way `cdk synth` does (a separate process given its output folder and the
 * context of cdk.json), without bundling, and reads the validation report it writes. cdk-nag and
 * the CloudFormation validation bundled with aws-cdk-lib both report there.
 */
async function synthLikeCli(context: Record<string, unknown> = {}): Promise<Synth> {
  const outdir = mkdtempSync(join(tmpdir(), 'switchyard-synth-'));
  try {
    const child = spawn(process.execPath, [require.resolve('tsx/cli'), 'infra/app.ts'], {
      cwd: repoRoot,
      env: {
        ...process.env,
        CDK_OUTDIR: outdir,
        CDK_CONTEXT_JSON: JSON.stringify({ ...cdkContext, 'aws:cdk:bundling-stacks': [], ...context }),
      },
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exitCode = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const report = JSON.parse(readFileSync(join(outdir, 'validation-report.json'), 'utf8'));
    const violations = (report.pluginReports as { pluginName: string; violations: { ruleName: string; severity: string }[] }[]).flatMap(
      (plugin) => plugin.violations.map((violation) => ({ pluginName: plugin.pluginName, ruleName: violation.ruleName, severity: violation.severity })),
    );
    return { exitCode, output, violations };
  } finally {
    rmSync(outdir, { recursive: true, force: true });
  }
}

describe('synthesis like `cdk synth`', () => {
  let synth: Synth;

  beforeAll(async () => {
    synth = await synthLikeCli();
  }, 180_000);

  it('passes cdk-nag AwsSolutions and the CloudFormation validation without a single finding', () => {
    expect(synth.violations).toEqual([]);
    expect(synth.exitCode).toBe(0);
  });

  it('passes them too without the WAF, with the origin secret and the API behind a custom origin domain', async () => {
    const edge = await synthLikeCli({
      waf: 'false',
      requireCloudFront: 'true',
      disableExecuteApiEndpoint: 'true',
      originDomainName: 'origin.flags.example.com',
      originCertificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0a1b2c3d-aaaa-bbbb-cccc-0123456789ab',
    });

    expect(edge.violations).toEqual([]);
    expect(edge.exitCode).toBe(0);
  }, 180_000);

  it('treats CloudFormation validation findings as errors that fail the synth', () => {
    // Unset, aws-cdk-lib only warns about them.
    expect(cdkContext['@aws-cdk/core:validateAgainstDefaultRules']).toBe(true);
  });
});

describe('cdk-nag', () => {
  const withQueue = (configure: (queue: Queue) => void) => {
    const app = new App({ builtinCloudFormationValidation: false });
    configure(new Queue(new Stack(app, 'Stack'), 'Queue', { encryption: QueueEncryption.SQS_MANAGED }));
    addChecks(app);
    return () => app.synth();
  };

  it('fails the synth on a finding nobody acknowledged', () => {
    const synth = withQueue(() => {});

    expect(synth).toThrow(/AwsSolutions-SQS4/);
  });

  it('passes once each finding is fixed or acknowledged with a reason', () => {
    const synth = withQueue((queue) => {
      Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS3', reason: 'a test queue that needs no dead-letter queue' });
      Validations.of(queue).acknowledge({ id: 'AwsSolutions-SQS4', reason: 'a test queue nobody calls' });
    });

    expect(synth).not.toThrow();
  });
});
