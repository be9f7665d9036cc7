/** The contract suite with the typed client talking to the validation gateway, whose upstream is the stub server. */
import { contractSuite } from "./support/contract-suite.js";

contractSuite("gateway");
