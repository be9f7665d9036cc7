/**
 * `@compute-api/stub-server/testing`: the stub's parts that other packages' tests hold their own code to — the
 * store (the search the Postgres example must answer alike) and the `Prefer` scanner (the hostile-header suite).
 */
export { maxPreferLength, parsePrefer } from "./faults.js";
export { Store, type User } from "./store/store.js";
