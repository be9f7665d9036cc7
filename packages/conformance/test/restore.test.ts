import { describe, expect, it } from "vitest";
import type { Answer, RawRequest } from "../src/http.js";
import { machineState, restoreMachine } from "../src/restore.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const writes = { projectId: "proj-alpha", machineId: "cm-1" };
const search = (query: string): RawRequest => ({ method: "GET", path: `/search?query=${query}` });
const patch = (body: unknown): RawRequest => ({ method: "PATCH", path: "/cm-1", body: JSON.stringify(body) });
const clusters = (projectId: string, machines: unknown[]) => ({ results: [{ cluster: { projectId, machines } }] });

describe("machineState", () => {
  it.each<[string, { given: Answer; want: Record<string, unknown> | RegExp }]>([
    [
      "the power state and price, as a PATCH body",
      {
        given: answer(200, clusters("proj-alpha", [{ id: "cm-1", powerState: "POWERED_ON", priceHr: { value: "2" } }])),
        want: { powerState: "POWERED_ON", priceHr: { value: "2" } },
      },
    ],
    [
      "no unspecified power state, which a PATCH could not write",
      {
        given: answer(200, clusters("proj-alpha", [{ id: "cm-1", powerState: "MACHINE_POWER_STATE_UNSPECIFIED" }])),
        want: {},
      },
    ],
    [
      "a machine of the same id in another project is not it",
      {
        given: answer(200, clusters("proj-beta", [{ id: "cm-1", powerState: "POWERED_ON" }])),
        want: /machine cm-1 is not among the clusters of proj-alpha .* nothing was written/,
      },
    ],
    ["a failed search", { given: answer(500, { code: 500 }), want: /nothing was written/ }],
  ])("%s", async (_name, { given, want }) => {
    const asked: string[] = [];
    const exchange = async (_operationId: string, request: RawRequest) => {
      asked.push(request.path);
      return given;
    };
    const state = machineState(exchange, search, writes);
    if (want instanceof RegExp) await expect(state).rejects.toThrow(want);
    else expect(await state).toEqual(want);
    expect(asked).toEqual(["/search?query=type:cluster proj-alpha"]);
  });
});

describe("restoreMachine", () => {
  it.each<[string, { given: { state: Record<string, unknown>; status: number }; want: string | undefined }]>([
    [
      "writes the state back",
      {
        given: { state: { powerState: "POWERED_ON" }, status: 200 },
        want: 'restored proj-alpha/cm-1 to {"powerState":"POWERED_ON"}',
      },
    ],
    [
      "says when it could not",
      {
        given: { state: { powerState: "POWERED_ON" }, status: 503 },
        want: 'could not restore proj-alpha/cm-1 to {"powerState":"POWERED_ON"}: answered 503',
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
