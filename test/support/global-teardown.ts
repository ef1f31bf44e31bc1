export default async function globalTeardown() {
  (globalThis as { __dynamo?: { stop(): void } }).__dynamo?.stop();
}
