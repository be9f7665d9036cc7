#!/usr/bin/env node
// compute-postgres: the example's command, run from its TypeScript sources through tsx (no build step). Workspace
// packages resolve to their dist/, which `npm install` builds; `npm run example:postgres` runs the sources of all.
import { register } from "tsx/esm/api";

register();
await import("../src/bin.ts");
