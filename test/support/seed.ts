/**
 * Reads the field tables of the interface description (test/fixtures/compute-service-interface.md, a copy of
 * shared/seed) so that tests can be driven by the seed itself rather than by a list typed again by hand.
 */
import { readFileSync } from "node:fs";

/** One field of a seed resource: its name and its type as the seed writes it. */
export interface SeedField {
  name: string;
  type: string;
}

const seed = readFileSync(new URL("../fixtures/compute-service-interface.md", import.meta.url), "utf8");

/** Rows of the first Markdown table after the heading line that starts with `heading`. */
function tableAfter(heading: string): string[][] {
  const lines = seed.split("\n");
  const start = lines.findIndex((l) => l.startsWith(heading));
  if (start < 0) throw new Error(`seed has no heading ${heading}`);
  const rows: string[][] = [];
  let inTable = false;
  for (const line of lines.slice(start + 1)) {
    if (line.startsWith("|")) {
      inTable = true;
      const cells = line
        .split("|")
        .slice(1, -1)
        .map((c) => c.trim());
      if (cells.every((c) => /^-+$/.test(c))) continue;
      rows.push(cells);
    } else if (inTable) break;
  }
  return rows.slice(1); // drop the header row
}

/** Splits `a (x), b; c (y; z)` at commas and semicolons outside parentheses. */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = "";
  for (const ch of text) {
    if (ch === "(") depth++;
    if (ch === ")") depth--;
    if ((ch === "," || ch === ";") && depth === 0) {
      parts.push(current.trim());
      current = "";
    } else current += ch;
  }
  if (current.trim()) parts.push(current.trim());
  return parts;
}

/** Fields of a resource written inline: `**Name**: a (string), b, c (all integer); d (timestamp).` */
function inlineFields(name: string): SeedField[] {
  const line = seed.split("\n").find((l) => l.startsWith(`**${name}**`));
  if (!line) throw new Error(`seed has no resource ${name}`);
  const body = line
    .slice(line.indexOf(":") + 1)
    .trim()
    .replace(/\.$/, "");
  const fields: SeedField[] = [];
  let pending: string[] = [];
  for (const part of splitTopLevel(body)) {
    const m = /^(\w+)(?: \((.*)\))?$/.exec(part);
    if (!m) throw new Error(`cannot read seed field "${part}" of ${name}`);
    const [, field, type] = m as unknown as [string, string, string | undefined];
    pending.push(field);
    if (type !== undefined) {
      const t = type.replace(/^all /, "");
      for (const p of pending) fields.push({ name: p, type: t });
      pending = [];
    }
  }
  if (pending.length > 0) throw new Error(`seed fields without a type in ${name}: ${pending.join(", ")}`);
  return fields;
}

const fromTable = (heading: string): SeedField[] =>
  tableAfter(heading).map(([name, type]) => ({ name: name ?? "", type: type ?? "" }));

/** Every resource of §2 of the seed, by the schema name it has in the spec, with its fields. */
export const seedResources: Record<string, SeedField[]> = {
  ClusterMachine: fromTable("### 2.1"),
  ApiKeyCreated: fromTable("### 2.2"),
  ErrorBody: fromTable("### 2.3"),
  SearchResult: fromTable("### 2.4"),
  BillingAccount: inlineFields("BillingAccount"),
  Project: inlineFields("Project"),
  Cluster: tableAfter("**Cluster**").map(([name, type]) => ({ name: name ?? "", type: type ?? "" })),
  Disk: inlineFields("Disk"),
  Image: inlineFields("Image"),
  Machine: inlineFields("Machine"),
  Network: inlineFields("Network"),
  VirtualMachine: inlineFields("VirtualMachine"),
  Volume: inlineFields("Volume"),
};

/** The request body fields of the operations of §4, by the request schema name in the spec. */
export const seedRequests: Record<string, SeedField[]> = {
  UpdateClusterMachineRequest: tableAfter("Request body (JSON object)").map(([name, type]) => ({
    name: name ?? "",
    type: type ?? "",
  })),
  CreateApiKeyRequest: tableAfter("Request body:").map(([name, type]) => ({ name: name ?? "", type: type ?? "" })),
};
