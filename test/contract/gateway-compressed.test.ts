/**
 * The contract suite through the validation gateway in front of a stub that compresses its answers (as nginx or
 * a framework with compression on does), every request accepting gzip, deflate and br.
 */
import { contractSuite } from "./support/contract-suite.js";

contractSuite("gateway", { compress: true });
