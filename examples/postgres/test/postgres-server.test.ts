/** The server on PGlite against the stub, over HTTP: the same answers to a list of valid and invalid requests. */
import { operationsSuite } from "./support/operations-suite.js";
import { pgliteTarget } from "./support/targets.js";

operationsSuite(pgliteTarget);
