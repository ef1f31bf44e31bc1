import { guardReadsOutsideRepository } from './repository-reads';

// Every test worker: quiet SDK warnings, the test table, and logs only for real problems.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true';
process.env.TABLE_NAME = 'switchyard-test';
process.env.LOG_LEVEL ??= 'CRITICAL';
process.env.AWS_REGION ??= 'local';
// A full run keeps DynamoDB Local (one JVM, 512 MB) busy enough to stall a call past the client's 5 s silence limit,
// which then fails a write that was merely slow. Tests of that limit set their own (test/db/dynamo-http, test/api/faults).
process.env.DYNAMODB_SOCKET_TIMEOUT_MS ??= '30000';

// A fresh clone has nothing beside the repository: a test that reads outside it fails here, not on someone else's machine.
guardReadsOutsideRepository();
