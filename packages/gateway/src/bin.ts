#!/usr/bin/env node
/** compute-gateway: see `compute-gateway --help` and the package README. */
import { main } from "./server.js";

await main(process.argv.slice(2));
