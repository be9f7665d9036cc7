/** The contract suite with the typed client talking to the Postgres example on PGlite directly. */
import { contractSuite } from "./support/contract-suite.js";
import { pgliteBackend } from "./support/postgres-backends.js";

contractSuite("direct", { backend: pgliteBackend });
