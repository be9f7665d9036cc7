import { describe, expect, it } from "vitest";
import type { Answer, RawRequest } from "../src/http.js";
import { readMachine, restoreBody, restoreMachine } from "../src/restore.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const writes = { projectId: "proj-alpha", machineId: "cm-1" };
const search = (query: string): RawRequest => ({ method: "GET", path: `/search?query=${query}` });
const patch = (body: unknown): RawRequest => ({ method: "PATCH", path: "/cm-1", body: JSON.stringify(body) });
const projects = (...ids: string[]) => answer(200, { results: ids.map((id) => ({ resourceName: `projects/${id}` })) });
const clusters = (projectId: string, machines: unknown[] | undefined) =>
  answer(200, { results: [{ cluster: { id: "cl-1", projectId, ...(machines ? { machines } : {}) } }] });

describe("readMachine", () => {
  it.each<[string, { given: { projects: Answer; clusters?: Answer }; want: Record<string, unknown> | RegExp }]>([
    [
      "the machine as the cluster lists it",
      {
        given: {
          projects: projects("proj-alpha"),
          clusters: clusters("proj-alpha", [{ id: "cm-1", powerState: "ON" }]),
        },
        want: { id: "cm-1", powerState: "ON" },
      },
    ],
    [
      "a project the type:project search does not show: which it shows, and what to change",
      {
        given: { projects: projects("proj-beta") },
        want: /--project to name a project that a type:project search shows the key, and the search "type:project proj-alpha" shows projects\/proj-beta: pass one the key sees as --project, or give the key's user access to proj-alpha in the backend; nothing was written$/,
      },
    ],
    [
      "a failed project search",
      {
        given: { projects: answer(503, { code: 503 }) },
        want: /"type:project proj-alpha" answered 503: .*nothing was written$/,
      },
    ],
    [
      "a machine of the same id in another project is not it",
      {
        given: { projects: projects("proj-alpha"), clusters: clusters("proj-beta", [{ id: "cm-1" }]) },
        want: /machine cm-1 is not \(clusters of proj-alpha: none\): pass a listed machine as --machine, or make the backend list each cluster's machines, .*; nothing was written$/,
      },
    ],
    [
      "a cluster without its machines: says so",
      {
        given: { projects: projects("proj-alpha"), clusters: clusters("proj-alpha", undefined) },
        want: /\(clusters of proj-alpha: cl-1: no machines field\)/,
      },
    ],
    [
      "a failed cluster search",
      {
        given: { projects: projects("proj-alpha"), clusters: answer(500, { code: 500 }) },
        want: /the search "type:cluster proj-alpha" answered 500, so the machine could not be read; nothing was written$/,
      },
    ],
  ])("%s", async (_name, { given, want }) => {
    const byQuery: Record<string, Answer | undefined> = {
      "type:project proj-alpha": given.projects,
      "type:cluster proj-alpha": given.clusters,
    };
    const exchange = async (_operationId: string, request: RawRequest) =>
      byQuery[request.path.split("=")[1] ?? ""] ?? answer(404, {});
    const machine = readMachine(exchange, search, writes);
    if (want instanceof RegExp) await expect(machine).rejects.toThrow(want);
    else expect(await machine).toEqual(want);
  });
});

describe("restoreBody", () => {
  it.each<[string, { given: Record<string, unknown>; want: Record<string, unknown> }]>([
    [
      "the power state and price, as a PATCH body",
      {
        given: { id: "cm-1", powerState: "ON", priceHr: { value: "2" }, volumeIds: ["v"] },
        want: { powerState: "ON", priceHr: { value: "2" } },
      },
    ],
    [
      "no unspecified power state, which a PATCH could not write",
      { given: { powerState: "MACHINE_POWER_STATE_UNSPECIFIED" }, want: {} },
    ],
  ])("%s", (_name, { given, want }) => {
    expect(restoreBody(given)).toEqual(want);
  });
});

describe("restoreMachine", () => {
  it.each<[string, { given: { state: Record<string, unknown>; status: number }; want: string | undefined }]>([
    [
      "writes the state back",
      { given: { state: { powerState: "ON" }, status: 200 }, want: 'restored proj-alpha/cm-1 to {"powerState":"ON"}' },
    ],
    [
      "says when it could not",
      {
        given: { state: { powerState: "ON" }, status: 503 },
        want: 'could not restore proj-alpha/cm-1 to {"powerState":"ON"}: answered 503',
      },
    ],
    ["sends nothing when there is nothing to write", { given: { state: {}, status: 200 }, want: undefined }],
  ])("%s", async (_name, { given, want }) => {
    const sent: RawRequest[] = [];
    const exchange = async (_operationId: string, request: RawRequest) => {
      sent.push(request);
      return answer(given.status, {});
    };
    expect(await restoreMachine(exchange, patch, writes, given.state)).toBe(want);
    expect(sent.map((r) => r.body)).toEqual(want === undefined ? [] : [JSON.stringify(given.state)]);
  });
});
