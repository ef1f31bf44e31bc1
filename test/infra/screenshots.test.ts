import { NestedStack, type Stack } from 'aws-cdk-lib';
import { screenshotBucketActions } from '../../infra/grants';
import { ofType, resourcesOf, synthesize } from './synth';

// One synth for the whole file.
const { api } = synthesize();
const resources = resourcesOf(api);
const [[bucketId, bucket]] = ofType(resources, 'AWS::S3::Bucket');
const nested: Stack[] = api.node.children.filter(NestedStack.isNestedStack);

interface Statement {
  Action: string | string[];
  Resource: unknown;
  Effect: string;
}

/** The parameters through which the nested stacks receive the bucket's name or ARN (any value that names the bucket). */
const bucketParameters = ofType(resources, 'AWS::CloudFormation::Stack').flatMap(([, stack]) =>
  Object.entries((stack.Properties!.Parameters ?? {}) as Record<string, unknown>)
    .filter(([, value]) => JSON.stringify(value).includes(`"${bucketId}"`))
    .map(([name]) => name),
);

/** Every function of the API's nested stacks: its description, environment and the statements of its role that name the bucket. */
const functions = nested.flatMap((stack) => {
  const stackResources = resourcesOf(stack);
  const namesBucket = (value: unknown) => bucketParameters.some((name) => JSON.stringify(value).includes(`"${name}"`));
  return ofType(stackResources, 'AWS::Lambda::Function').map(([, fn]) => {
    const role = fn.Properties!.Role['Fn::GetAtt'][0];
    const statements = ofType(stackResources, 'AWS::IAM::Policy')
      .filter(([, policy]) => (policy.Properties!.Roles as { Ref: string }[]).some((r) => r.Ref === role))
      .flatMap(([, policy]) => policy.Properties!.PolicyDocument.Statement as Statement[]);
    return {
      description: fn.Properties!.Description as string,
      bucketEnvironment: fn.Properties!.Environment?.Variables?.SCREENSHOT_BUCKET,
      onBucket: statements.filter((statement) => namesBucket(statement.Resource)),
      anyS3: statements.filter((statement) => [statement.Action].flat().some((action) => action.startsWith('s3:'))),
    };
  });
});

describe('the screenshot bucket', () => {
  it('is the API stack’s one bucket: encrypted, public access blocked, kept on delete', () => {
    expect(ofType(resources, 'AWS::S3::Bucket')).toHaveLength(1);
    expect(bucket.DeletionPolicy).toBe('Retain');
    expect(bucket.Properties).toMatchObject({
      BucketEncryption: { ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: 'AES256' } }] },
      PublicAccessBlockConfiguration: { BlockPublicAcls: true, BlockPublicPolicy: true, IgnorePublicAcls: true, RestrictPublicBuckets: true },
    });
  });

  it('refuses every request that is not over TLS', () => {
    const [[, policy]] = ofType(resources, 'AWS::S3::BucketPolicy');

    expect(policy.Properties!.Bucket).toEqual({ Ref: bucketId });
    expect(policy.Properties!.PolicyDocument.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Deny', Action: 's3:*', Principal: { AWS: '*' }, Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
    );
  });

  it('is reached by the three screenshot functions only, each with exactly its object actions on the bucket’s objects', () => {
    const reaching = functions.filter((fn) => fn.anyS3.length > 0 || fn.bucketEnvironment);

    expect(reaching.map((fn) => fn.description).sort()).toEqual([
      'DELETE /api/v1/experiments/{id}/variation/{variationId}/screenshot',
      'GET /api/v1/experiments/{id}/variation/{variationId}/screenshot/{file}',
      'POST /api/v1/experiments/{id}/variation/{variationId}/screenshot/upload',
    ]);
    const byRoute = Object.fromEntries(reaching.map((fn) => [fn.description.split(' ')[0], fn]));
    const expected = {
      POST: screenshotBucketActions.postVariationImageUpload,
      DELETE: screenshotBucketActions.deleteVariationScreenshot,
      GET: screenshotBucketActions.getVariationScreenshot,
    };
    expect(expected).toEqual({ POST: ['s3:PutObject', 's3:DeleteObject'], DELETE: ['s3:DeleteObject'], GET: ['s3:GetObject'] });
    for (const [method, actions] of Object.entries(expected)) {
      const fn = byRoute[method]!;
      expect(fn.anyS3).toEqual(fn.onBucket);
      expect(fn.onBucket).toHaveLength(1);
      expect([fn.onBucket[0].Action].flat().sort()).toEqual([...actions].sort());
      expect(fn.onBucket[0].Effect).toBe('Allow');
      // The objects only (`<bucket ARN>/*`), never the bucket itself.
      expect(JSON.stringify(fn.onBucket[0].Resource)).toMatch(/"\/\*"\]\]\}$/);
      expect(fn.bucketEnvironment).toBeDefined();
    }
  });
});
