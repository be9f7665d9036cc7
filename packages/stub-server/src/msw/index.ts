/**
 * `@compute-api/stub-server/msw`: the stub as MSW request handlers, for unit tests (`setupServer` from `msw/node`)
 * and browsers (`setupWorker` from `msw/browser`) without a server — the same store, operations and validation as
 * `compute-stub`, with its state control as functions. Needs `msw` 2 (an optional peer dependency).
 */
export { createStubHandlers, type StubHandlers, type StubHandlersOptions } from "./create-stub-handlers.js";
