/**
 * `npm run check:breaking`'s verdicts: each row applies one change to a copy of generated/openapi.json (and, where the
 * change needs something the spec lacks, the same addition to the released side first) and asserts the verdict and
 * the rule, through the real oasdiff. A second group runs the real script end to end. That the check passes on the
 * current spec is `npm test`'s own `check:breaking` step, not repeated here.
 */
import { execFile } from "node:child_process";
import { mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type Finding, findBreakingChanges } from "../../scripts/breaking/find.js";
import { type OasdiffCheck, oasdiff as runOasdiff } from "../../scripts/breaking/oasdiff.js";
import { keywordRules, levelOverrides } from "../../scripts/breaking/rules.js";

const root = path.resolve(import.meta.dirname, "../..");

type Schema = {
  type?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
  required?: string[];
  [keyword: string]: unknown;
};
type Doc = {
  info: { version: string };
  paths: Record<string, Record<string, { parameters?: unknown[]; responses: Record<string, unknown> }>>;
  components: { schemas: Record<string, Schema>; parameters: Record<string, { schema: Schema }> };
};
type Edit = (doc: Doc) => void;

const search = "/v1/resources/search";
const s = (doc: Doc) => doc.components.schemas;
const prop = (doc: Doc, schema: string, name: string) => s(doc)[schema]!.properties![name]!;
const addProp = (doc: Doc, schema: string, name: string, value: Schema) => {
  s(doc)[schema]!.properties![name] = value;
};

/** Additions made on both sides, so that a row can change something the spec does not have. */
const ttlDays: Edit = (d) =>
  addProp(d, "CreateApiKeyRequest", "ttlDays", { type: "integer", minimum: 1, maximum: 365 });
const scope: Edit = (d) => addProp(d, "CreateApiKeyRequest", "scope", { type: "string", enum: ["read", "write"] });
const kind: Edit = (d) => addProp(d, "SearchResultCommon", "kind", { type: "string", enum: ["owned", "shared"] });

type Want = { verdict: "error" | "warning" | "quiet"; rule?: string; location?: RegExp };
type Row = [name: string, { both?: Edit; change: Edit; want: Want }];

const table: Row[] = [
  [
    "narrowed maxLength on a request body property",
    {
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "apikeyId").maxLength = 50;
      },
      want: { verdict: "error", rule: "request-property-max-length-decreased", location: /~1v1~1api-keys\/post/ },
    },
  ],
  [
    "narrowed maxLength on a path parameter",
    {
      change: (d) => {
        s(d).ResourceId!.maxLength = 100;
      },
      want: {
        verdict: "error",
        rule: "request-parameter-max-length-decreased",
        location: /cluster-machines.*\/parameters\/0$/,
      },
    },
  ],
  [
    "narrowed maxItems on a request array",
    {
      change: (d) => {
        prop(d, "UpdateClusterMachineRequest", "volumeIds").maxItems = 10;
      },
      want: { verdict: "error", rule: "request-property-max-items-decreased", location: /volumeIds\/maxItems$/ },
    },
  ],
  [
    "narrowed maximum on a request number",
    {
      both: ttlDays,
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "ttlDays").maximum = 90;
      },
      want: { verdict: "error", rule: "request-property-max-decreased" },
    },
  ],
  [
    "narrowed pattern on a request property",
    {
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "apikeyId").pattern = "^[a-z-]+$";
      },
      want: { verdict: "error", rule: "request-property-pattern-changed" },
    },
  ],
  [
    "widened minLength on a request property",
    {
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "apikeyId").minLength = 5;
      },
      want: { verdict: "error", rule: "request-property-min-length-increased" },
    },
  ],
  [
    "widened minimum on a request number",
    {
      both: ttlDays,
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "ttlDays").minimum = 7;
      },
      want: { verdict: "error", rule: "request-property-min-increased" },
    },
  ],
  [
    "widened minItems on a request array",
    {
      both: (d) => {
        prop(d, "UpdateClusterMachineRequest", "volumeIds").minItems = 1;
      },
      change: (d) => {
        prop(d, "UpdateClusterMachineRequest", "volumeIds").minItems = 2;
      },
      want: { verdict: "error", rule: "request-property-min-items-increased" },
    },
  ],
  [
    "a constraint beside a $ref (3.1 applies both)",
    {
      change: (d) => {
        prop(d, "UpdateClusterMachineRequest", "volumeIds").items = {
          $ref: "#/components/schemas/ResourceId",
          maxLength: 64,
        };
      },
      want: { verdict: "error", rule: "request-property-max-length-set" },
    },
  ],
  [
    "additionalProperties: false added to a request body",
    {
      both: (d) => {
        delete s(d).CreateApiKeyRequest!.additionalProperties;
      },
      change: (d) => {
        s(d).CreateApiKeyRequest!.additionalProperties = false;
      },
      want: { verdict: "error", rule: "request-body-additional-properties-disallowed" },
    },
  ],
  [
    "request property made required",
    {
      change: (d) => {
        s(d).UpdateClusterMachineRequest!.required = ["state"];
      },
      want: { verdict: "error", rule: "request-property-became-required" },
    },
  ],
  [
    "new required query parameter",
    {
      change: (d) =>
        d.paths[search]!.get!.parameters!.push({
          name: "region",
          in: "query",
          required: true,
          schema: { type: "string" },
        }),
      want: { verdict: "error", rule: "new-required-request-parameter", location: /search\/get\/parameters\/1$/ },
    },
  ],
  [
    "removed operation",
    {
      change: (d) => {
        delete d.paths["/v1/api-keys"];
      },
      want: {
        verdict: "error",
        rule: "api-path-removed-without-deprecation",
        location: /^baseline.*~1v1~1api-keys\/post$/,
      },
    },
  ],
  [
    "removed parameter",
    {
      change: (d) => {
        d.paths[search]!.get!.parameters = [];
      },
      want: { verdict: "error", rule: "request-parameter-removed", location: /^baseline.*search\/get\/parameters\/0$/ },
    },
  ],
  [
    "removed response status",
    {
      change: (d) => {
        delete d.paths["/v1/api-keys"]!.post!.responses["409"];
      },
      want: { verdict: "error", rule: "response-non-success-status-removed", location: /responses\/409$/ },
    },
  ],
  [
    "removed response property",
    {
      change: (d) => {
        delete s(d).Cluster!.properties!.startScript;
      },
      want: { verdict: "error", rule: "response-optional-property-removed", location: /search\/get\/responses\/200$/ },
    },
  ],
  [
    "response property type change",
    {
      change: (d) => {
        prop(d, "ClusterMachine", "cpuCores").type = "string";
      },
      want: { verdict: "error", rule: "response-property-type-changed" },
    },
  ],
  [
    "request property type change",
    {
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "apikeyId").type = "integer";
      },
      want: { verdict: "error", rule: "request-property-type-changed" },
    },
  ],
  [
    "request enum value removed",
    {
      change: (d) => {
        s(d).MachinePowerState!.enum = s(d).MachinePowerState!.enum!.filter((v) => v !== "REBOOTING");
      },
      want: { verdict: "error", rule: "request-property-enum-value-removed" },
    },
  ],
  [
    "response maxItems raised",
    {
      change: (d) => {
        prop(d, "SearchResourcesResponse", "results").maxItems = 200;
      },
      want: { verdict: "error", rule: "response-property-max-items-increased" },
    },
  ],
  [
    "response enum value added inside oneOf (a SearchResult branch)",
    {
      change: (d) => s(d).CommitmentTerm!.enum!.push("COMMITMENT_TERM_FIVE_YEARS"),
      want: {
        verdict: "warning",
        rule: "response-property-enum-value-added",
        location: /search\/get\/responses\/200$/,
      },
    },
  ],
  [
    "response enum value added inside allOf (SearchResultCommon)",
    {
      both: kind,
      change: (d) => prop(d, "SearchResultCommon", "kind").enum!.push("public"),
      want: { verdict: "warning", rule: "response-property-enum-value-added" },
    },
  ],
  [
    "enum value added to a schema both requests and responses use",
    {
      change: (d) => s(d).MachinePowerState!.enum!.push("HIBERNATING"),
      want: { verdict: "warning", rule: "response-property-enum-value-added" },
    },
  ],
  [
    "request-only enum value added",
    {
      both: scope,
      change: (d) => prop(d, "CreateApiKeyRequest", "scope").enum!.push("admin"),
      want: { verdict: "quiet" },
    },
  ],
  [
    "widened maxLength on a request property",
    {
      change: (d) => {
        prop(d, "CreateApiKeyRequest", "apikeyId").maxLength = 80;
      },
      want: { verdict: "quiet" },
    },
  ],
  [
    "operation added",
    {
      change: (d) => {
        d.paths["/v1/regions"] = { get: { responses: { "200": { description: "The regions." } } } };
      },
      want: { verdict: "quiet" },
    },
  ],
  [
    "response property added",
    { change: (d) => addProp(d, "ClusterMachine", "zone", { type: "string" }), want: { verdict: "quiet" } },
  ],
  [
    "description change",
    {
      change: (d) => {
        s(d).ClusterMachine!.description = "A machine of a cluster.";
      },
      want: { verdict: "quiet" },
    },
  ],
];

let dir: string;
let spec: Doc;

beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), "breaking-test-"));
  spec = JSON.parse(await readFile(path.join(root, "generated", "openapi.json"), "utf8")) as Doc;
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/** The worst verdict among the findings. */
const verdictOf = (findings: Finding[]): Want["verdict"] =>
  findings.some((f) => f.verdict === "error") ? "error" : findings.length > 0 ? "warning" : "quiet";

describe("check:breaking verdicts", () => {
  it.each(table)("%s", async (_name, { both, change, want }) => {
    const baseline = structuredClone(spec);
    both?.(baseline);
    const current = structuredClone(baseline);
    change(current);
    const findings = await findBreakingChanges({
      baseline: { name: "baseline/openapi.json", doc: baseline },
      current: { name: "generated/openapi.json", doc: current },
    });
    expect(verdictOf(findings), JSON.stringify(findings, null, 2)).toBe(want.verdict);
    if (want.rule) {
      const matching = findings.filter((f) => f.rule === want.rule);
      expect(matching, JSON.stringify(findings, null, 2)).not.toHaveLength(0);
      if (want.location) expect(matching.map((f) => f.location)).toContainEqual(expect.stringMatching(want.location));
    }
  });
});

/** Runs the real script against a current spec written to a temporary file. */
async function check(current: Doc): Promise<{ code: number; output: string }> {
  const file = path.join(dir, `current-${Math.random().toString(36).slice(2)}.json`);
  await writeFile(file, JSON.stringify(current));
  return new Promise((resolve) => {
    execFile(
      path.join(root, "node_modules", ".bin", "tsx"),
      ["scripts/check-breaking.ts", "--current", file],
      { cwd: root },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === "number" ? error.code : 0, output: stdout + stderr }),
    );
  });
}

/** Two breaking changes: a narrowed path parameter and a removed response property. */
const breakBoth: Edit = (d) => {
  s(d).ResourceId!.maxLength = 100;
  delete s(d).Cluster!.properties!.startScript;
};

describe("npm run check:breaking", { timeout: 120_000 }, () => {
  it("fails on a breaking change, naming operation, location, rule and what changed", async () => {
    const current = structuredClone(spec);
    breakBoth(current);
    const { code, output } = await check(current);
    expect(code, output).toBe(1);
    expect(output).toMatch(
      /error request-parameter-max-length-decreased in PATCH \/v1\/projects\/\{projectId\}\/cluster-machines\/\{id\} \(updateClusterMachine\)\n\s+at .*#\/paths\/~1v1~1projects~1\{projectId\}~1cluster-machines~1\{id\}\/parameters\/0\n\s+for the `path` request parameter `projectId`, the maxLength was decreased from `128` to `100`/,
    );
    expect(output).toMatch(
      /error response-optional-property-removed in GET \/v1\/resources\/search \(searchResources\)/,
    );
    expect(output).toMatch(/raise info\.version in openapi\/openapi\.yaml to 2\.0\.0/);
  });

  it("allows the same changes when the major version is raised", async () => {
    const current = structuredClone(spec);
    breakBoth(current);
    current.info.version = "2.0.0";
    const { code, output } = await check(current);
    expect(output).toMatch(
      /breaking change\(s\) against 1\.\d+\.\d+, allowed because the major version was raised to 2\.0\.0/,
    );
    expect(code, output).toBe(0);
  });

  it("prints a warning and passes on a value added to a response enum", async () => {
    const current = structuredClone(spec);
    s(current).CommitmentTerm!.enum!.push("COMMITMENT_TERM_FIVE_YEARS");
    const { code, output } = await check(current);
    expect(code, output).toBe(0);
    expect(output).toMatch(
      /warning response-property-enum-value-added in GET \/v1\/resources\/search \(searchResources\)/,
    );
    expect(output).toMatch(/no breaking change against the released spec/);
  });

  it("exits 2 with oasdiff's reason when a spec cannot be read", async () => {
    const current = structuredClone(spec) as unknown as { paths: unknown };
    current.paths = ["not", "a", "paths", "object"];
    const { code, output } = await check(current as unknown as Doc);
    expect(code, output).toBe(2);
    expect(output).toMatch(/the breaking-change check could not run: oasdiff \w+ failed \(exit \d+\): .*paths/);
  });
});

/** The ids a README cell spells with braces: `request-{body,property}-x` is two. */
const expand = (id: string): string[] => {
  const m = /\{([^{}]*)\}/.exec(id);
  if (!m) return [id];
  return m[1]!.split(",").flatMap((alt) => expand(id.slice(0, m.index) + alt + id.slice(m.index + m[0].length)));
};

describe("baseline/README.md's rule table", () => {
  it("names only rules that exist, and every rule the check raises or adds", async () => {
    const checks = await runOasdiff<OasdiffCheck[]>("checks");
    const oasdiff = new Set(checks.map((c) => c.id));
    const own = keywordRules.flatMap((r) =>
      (r.direction === "request" ? ["body", "property", "parameter"] : ["body", "property"]).map(
        (place) => `${r.direction}-${place}-${r.name}`,
      ),
    );
    const readme = await readFile(path.join(root, "baseline", "README.md"), "utf8");
    const named = readme
      .split("\n")
      .filter((line) => line.startsWith("| `"))
      .flatMap((line) => [...line.split("|")[1]!.matchAll(/`([a-z{][a-z{},-]*)`/g)].flatMap((m) => expand(m[1]!)));
    expect(named.filter((id) => !oasdiff.has(id) && !own.includes(id))).toEqual([]);
    expect(Object.keys(levelOverrides).filter((id) => !oasdiff.has(id))).toEqual([]);
    for (const id of [...Object.keys(levelOverrides), ...own]) expect(named).toContain(id);
  });
});
