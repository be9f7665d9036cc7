#!/usr/bin/env node
// compute-mcp: the MCP server's command (src/bin.ts, compiled to dist/). This file is committed so that npm
// links the bin on the first install of a fresh clone, before dist/ is built.
import "../dist/bin.js";
