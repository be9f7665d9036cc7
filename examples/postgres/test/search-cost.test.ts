/**
 * The search's cost bound (docs/postgres-example.md: Search cost) on PGlite, over 25,000 generated resources:
 * loading 100,000 into PGlite takes about a minute, and the bound is in the work each search does, whatever the
 * number.
 */
import { searchCostSuite } from "./support/search-cost-suite.js";
import { pgliteTarget } from "./support/targets.js";

searchCostSuite(pgliteTarget, { count: 25_000, loadTimeoutMs: 900_000, concurrent: false });
