/** Concurrent PATCHes and createApiKeys on PGlite: totals that agree, one key per id. */
import { consistencySuite } from "./support/consistency-suite.js";
import { pgliteTarget } from "./support/targets.js";

consistencySuite(pgliteTarget);
