#!/usr/bin/env node
/** compute-mcp: see `compute-mcp --help` and the package README. */
import { main } from "./main.js";

await main(process.argv.slice(2));
