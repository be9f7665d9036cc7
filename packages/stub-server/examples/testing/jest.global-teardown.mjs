// jest.global-teardown.mjs
export default async function globalTeardown() {
  await globalThis.__computeStub?.close();
}
