/** The contract suite with the typed client talking to the stub server directly. */
import { contractSuite } from "./support/contract-suite.js";

contractSuite("direct");
