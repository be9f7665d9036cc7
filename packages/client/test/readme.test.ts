/**
 * The READMEs' TypeScript snippets compile as written: each ```ts block of this package's README, and each one of the
 * repository's README that imports this package, is type-checked against the package's sources with strict settings,
 * as a module of its own (top-level await allowed). The snippets are served to the compiler from memory, from a
 * folder of this package, so that `@compute-api/client` resolves as it does for any workspace file.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";
import { beforeAll, describe, expect, test } from "vitest";

const packageDir = fileURLToPath(new URL("..", import.meta.url));
const readmes = [join(packageDir, "README.md"), join(packageDir, "../../README.md")];

interface Snippet {
  /** `README.md:42`, where the block's code starts. */
  where: string;
  /** Path of the in-memory module the block becomes. */
  file: string;
  /** Line of the README where the code starts, 1-based. */
  firstLine: number;
  code: string;
}

function snippetsOf(readme: string, onlyImportingClient: boolean): Snippet[] {
  const text = readFileSync(readme, "utf8");
  const name = readme === readmes[0] ? "README.md" : "../../README.md";
  const snippets: Snippet[] = [];
  for (const match of text.matchAll(/^```ts\n([\s\S]*?)^```$/gm)) {
    const code = match[1] ?? "";
    if (onlyImportingClient && !code.includes('from "@compute-api/client"')) continue;
    const firstLine = text.slice(0, match.index).split("\n").length + 1;
    const file = join(packageDir, "test", `readme-snippet-${snippets.length}-${readmes.indexOf(readme)}.mts`);
    snippets.push({ where: `${name}:${firstLine}`, file, firstLine, code });
  }
  return snippets;
}

const snippets = [...snippetsOf(readmes[0] ?? "", false), ...snippetsOf(readmes[1] ?? "", true)];
// Compiled with them, to show that the check is not vacuous: what the README's snippets once did.
const control: Snippet = {
  where: "control:1",
  file: join(packageDir, "test", "readme-snippet-control.mts"),
  firstLine: 1,
  code: [
    'import { createComputeClient } from "@compute-api/client";',
    'createComputeClient({ baseUrl: "https://api.example.com", apiKey: () => vault.currentKey() });',
    'createComputeClient({ baseUrl: "https://api.example.com", apiKey });',
  ].join("\n"),
};

/** The compiler's complaints about each snippet, as `README.md:<line>: <message>`. */
function typeCheck(): Map<string, string[]> {
  const options: ts.CompilerOptions = {
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
    types: ["node"],
    customConditions: ["@compute-api/source"],
    strict: true,
    noUncheckedIndexedAccess: true,
    exactOptionalPropertyTypes: true,
    noUnusedLocals: true,
    skipLibCheck: true,
    noEmit: true,
  };
  const byFile = new Map([...snippets, control].map((snippet) => [snippet.file, snippet]));
  const host = ts.createCompilerHost(options);
  const { fileExists, readFile, getSourceFile } = host;
  host.fileExists = (file) => byFile.has(file) || fileExists(file);
  host.readFile = (file) => byFile.get(file)?.code ?? readFile(file);
  host.getSourceFile = (file, language, ...rest) => {
    const snippet = byFile.get(file);
    return snippet ? ts.createSourceFile(file, snippet.code, language) : getSourceFile(file, language, ...rest);
  };
  const program = ts.createProgram([...byFile.keys()], options, host);
  const problems = new Map([...snippets, control].map((snippet) => [snippet.where, [] as string[]]));
  // Only the snippets are checked, not every file they import: the package's own files have their own checks.
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...[...byFile.keys()].flatMap((file) => {
      const source = program.getSourceFile(file);
      return source ? [...program.getSyntacticDiagnostics(source), ...program.getSemanticDiagnostics(source)] : [];
    }),
  ];
  for (const diagnostic of diagnostics) {
    const snippet = diagnostic.file && byFile.get(diagnostic.file.fileName);
    const message = ts.flattenDiagnosticMessageText(diagnostic.messageText, "\n");
    if (!snippet || !diagnostic.file) {
      // A problem of the options or the global types fails every snippet.
      for (const list of problems.values()) list.push(`${diagnostic.file?.fileName ?? "options"}: ${message}`);
      continue;
    }
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0);
    problems.get(snippet.where)?.push(`${snippet.where.split(":")[0]}:${snippet.firstLine + line}: ${message}`);
  }
  return problems;
}

let checked: Map<string, string[]>;
// About 6 s of CPU: the compiler loads the DOM and Node.js types and the spec's generated types.
beforeAll(() => {
  checked = typeCheck();
}, 360_000);

describe("README snippets", () => {
  test("there are snippets to check: this README's five and the repository README's client one", () => {
    expect(snippets.length).toBeGreaterThanOrEqual(6);
  });

  test.each(snippets.map((snippet) => snippet.where))("%s type-checks as written", (where) => {
    expect(checked.get(where)).toEqual([]);
  });

  test("a snippet that uses names it does not declare fails the check", () => {
    expect(checked.get(control.where)).toEqual([
      "control:2: Cannot find name 'vault'.",
      "control:3: No value exists in scope for the shorthand property 'apiKey'. Either declare one or provide an initializer.",
    ]);
  });
});
