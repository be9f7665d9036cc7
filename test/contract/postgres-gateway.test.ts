/** The contract suite with the typed client talking to the validation gateway in front of the Postgres example on PGlite. */
import { contractSuite } from "./support/contract-suite.js";
import { pgliteBackend } from "./support/postgres-backends.js";

contractSuite("gateway", { backend: pgliteBackend });
