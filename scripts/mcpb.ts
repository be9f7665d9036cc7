/**
 * `npm run mcpb [-- --out <dir>]`: builds compute-mcp's MCP bundle, `compute-mcp-<version>.mcpb` (default in
 * `dist-packages/`), what agent hosts such as Claude Desktop install with one click. The bundle is a zip of
 * `manifest.json` (the MCPB manifest: the server to start, and the settings a host asks its user for, the API key
 * as a sensitive one) and `server/node_modules/`: `@compute-api/mcp` and what it depends on, installed from the
 * tarballs `npm run pack -- mcp` makes, every other package at this repository's locked version. The official CLI
 * (`@anthropic-ai/mcpb`) validates the manifest and packs it.
 * @see https://github.com/modelcontextprotocol/mcpb/blob/main/MANIFEST.md
 */
import { execFile } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs, promisify } from "node:util";
import { installTarballs, type Manifest, packInto, withDependencies } from "./pack.js";

const run = promisify(execFile);
const root = fileURLToPath(new URL("..", import.meta.url));

/** The official MCPB command line, run with this Node. */
export const mcpbCli = join(dirname(createRequire(import.meta.url).resolve("@anthropic-ai/mcpb")), "cli", "cli.js");

/** A variable of `mcp_config` that the host puts in: `${__dirname}`, `${user_config.api_key}`. */
export const hostVariable = (name: string): string => `\${${name}}`;

/** Where the bundle's server starts: the command of the installed package. */
const entryPoint = "server/node_modules/@compute-api/mcp/bin/compute-mcp.js";

/** The tools of the bundle, for the host's listing: name and title, as the generated tools have them. */
function toolsOf(): { name: string; description: string }[] {
  const file = join(root, "packages/mcp/src/generated/tools.json");
  const { tools } = JSON.parse(readFileSync(file, "utf8")) as { tools: { tool: { name: string; title: string } }[] };
  return tools.map(({ tool }) => ({ name: tool.name, description: tool.title }));
}

/** The bundle's manifest.json for the installed package's manifest. */
export function mcpbManifest(mcp: Manifest): object {
  const engines = (mcp.engines ?? {}) as { node?: string };
  return {
    manifest_version: "0.3",
    name: "compute-mcp",
    display_name: "Compute service",
    version: mcp.version,
    description: mcp.description,
    long_description:
      "Search the compute service's resources, change a cluster machine or create an API key, with the key you " +
      "give. The tools are generated from the service's OpenAPI document; arguments are checked before anything is " +
      "sent, and every failure says what to do.",
    author: { name: "compute-api" },
    repository: { type: "git", url: "https://github.com/compute-api/compute-api.git" },
    homepage: "https://github.com/compute-api/compute-api/tree/main/packages/mcp#readme",
    license: mcp.license,
    keywords: mcp.keywords,
    server: {
      type: "node",
      entry_point: entryPoint,
      mcp_config: {
        command: "node",
        args: [`${hostVariable("__dirname")}/${entryPoint}`],
        // The key goes in the environment, never in the arguments (where a process list shows them).
        env: {
          COMPUTE_BASE_URL: hostVariable("user_config.base_url"),
          COMPUTE_API_KEY: hostVariable("user_config.api_key"),
          COMPUTE_MCP_READ_ONLY: hostVariable("user_config.read_only"),
        },
      },
    },
    tools: toolsOf(),
    compatibility: { platforms: ["darwin", "win32", "linux"], runtimes: { node: engines.node ?? ">=20.19.0" } },
    user_config: {
      base_url: {
        type: "string",
        title: "Service URL",
        description: "The compute service's origin, without /v1, such as https://api.example.com",
        required: true,
      },
      api_key: {
        type: "string",
        title: "API key",
        description: "The key compute-mcp calls the service with (cak_…); the tools act with its user's access",
        sensitive: true,
        required: true,
      },
      read_only: {
        type: "boolean",
        title: "Read-only",
        description: "Serve only the tools that change nothing (the search)",
        default: false,
        required: false,
      },
    },
  };
}

/** Builds the bundle into `outDir`; resolves its path. */
export async function buildMcpb(outDir: string): Promise<string> {
  const stage = mkdtempSync(join(tmpdir(), "compute-mcpb-"));
  try {
    const tarballs = await packInto(withDependencies(["mcp"]), join(stage, "tarballs"));
    const bundle = join(stage, "bundle");
    const manifests = await installTarballs(join(bundle, "server"), tarballs);
    const mcp = manifests.find((m) => m.name === "@compute-api/mcp");
    if (!mcp) throw new Error("@compute-api/mcp was not packed");
    // The project's own file: the tarballs it names are not in the bundle.
    writeFileSync(join(bundle, "server", "package.json"), `${JSON.stringify({ private: true, type: "module" })}\n`);
    writeFileSync(join(bundle, "manifest.json"), `${JSON.stringify(mcpbManifest(mcp), null, 2)}\n`);
    // npm's links to the commands would be packed as copies that no longer find their modules; the manifest starts
    // the package's own file.
    writeFileSync(join(bundle, ".mcpbignore"), "**/node_modules/.bin\n");
    mkdirSync(outDir, { recursive: true });
    const file = join(outDir, `compute-mcp-${mcp.version}.mcpb`);
    await run(process.execPath, [mcpbCli, "pack", bundle, file], { maxBuffer: 64 * 1024 * 1024 });
    return file;
  } finally {
    rmSync(stage, { recursive: true, force: true });
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { out: { type: "string", default: "dist-packages" } } });
  const file = await buildMcpb(resolve(values.out));
  process.stdout.write(
    `Built ${file}\nInstall it in an agent host that takes MCP bundles (Claude Desktop: open it).\n`,
  );
}
