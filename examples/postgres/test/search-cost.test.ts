/**
 * The search's cost bound (README: Search cost) on PGlite, over 25,000 generated resources with the budget scaled
 * to them: loading 100,000 into PGlite takes about a minute, and the cost is one read of every entry.
 */
import { searchCostSuite } from "./support/search-cost-suite.js";
import { pgliteTarget } from "./support/targets.js";

searchCostSuite(pgliteTarget, { count: 25_000, besideMs: 250, loadTimeoutMs: 300_000, cancels: false });
