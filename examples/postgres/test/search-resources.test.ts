/** searchResources on PGlite: the stub's answers for many queries on the built-in and a generated data set. */
import { searchSuite } from "./support/search-suite.js";
import { pgliteTarget } from "./support/targets.js";

searchSuite(pgliteTarget);
