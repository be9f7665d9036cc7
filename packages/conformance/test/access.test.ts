import { describe, expect, it } from "vitest";
import { discoverAccess } from "../src/access.js";
import type { Answer, RawRequest } from "../src/http.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const results = (...names: string[]) => ({ results: names.map((resourceName) => ({ resourceName })) });
const search = (query: string): RawRequest => ({ method: "GET", path: `/search?query=${query}` });

/** An exchange that answers each query from the table, and records what was asked. */
const answering = (byQuery: Record<string, Answer>, asked: string[] = []) =>
  async function exchange(_operationId: string, request: RawRequest): Promise<Answer> {
    const query = request.path.split("=")[1] ?? "";
    asked.push(query);
    return byQuery[query] ?? answer(404, {});
  };

describe("discoverAccess", () => {
  it.each<
    [
      string,
      {
        given: { projects: Answer; billingAccounts: Answer };
        want: { projects: string[]; billingAccounts: string[]; complete: boolean; words: string[]; note: RegExp };
      },
    ]
  >([
    [
      "what both searches list",
      {
        given: {
          projects: answer(200, results("projects/proj-alpha", "projects/proj-beta")),
          billingAccounts: answer(200, results("billingAccounts/ba-1")),
        },
        want: {
          projects: ["proj-alpha", "proj-beta"],
          billingAccounts: ["ba-1"],
          complete: true,
          words: ["proj-alpha", "proj-beta", "ba-1"],
          note: /^the key sees 2 projects and 1 billing accounts; every search result is held to them$/,
        },
      },
    ],
    [
      "incomplete when a search fails",
      {
        given: { projects: answer(200, results("projects/p")), billingAccounts: answer(503, { code: 503 }) },
        want: { projects: ["p"], billingAccounts: [], complete: false, words: ["p"], note: /search_access was not/ },
      },
    ],
    [
      "incomplete when a search gives 100 results (there may be more)",
      {
        given: {
          projects: answer(200, results(...Array.from({ length: 100 }, (_, i) => `projects/p${i}`))),
          billingAccounts: answer(200, results()),
        },
        want: {
          projects: Array.from({ length: 100 }, (_, i) => `p${i}`),
          billingAccounts: [],
          complete: false,
          words: Array.from({ length: 100 }, (_, i) => `p${i}`),
          note: /could not all be listed/,
        },
      },
    ],
  ])("%s", async (_name, { given, want }) => {
    const asked: string[] = [];
    const exchange = answering({ "type:project": given.projects, "type:billingAccount": given.billingAccounts }, asked);
    const { access, words, note } = await discoverAccess(exchange, search);
    expect(asked).toEqual(["type:project", "type:billingAccount"]);
    expect([...(access?.projects ?? [])]).toEqual(want.projects);
    expect([...(access?.billingAccounts ?? [])]).toEqual(want.billingAccounts);
    expect(access?.complete).toBe(want.complete);
    expect(words).toEqual(want.words);
    expect(note).toMatch(want.note);
  });

  it("warns, and holds nothing to access, when the key sees no project and no billing account", async () => {
    const exchange = answering({
      "type:project": answer(200, results()),
      "type:billingAccount": answer(200, results()),
    });
    const discovered = await discoverAccess(exchange, search);
    expect(discovered.access).toBeUndefined();
    expect(discovered.warning).toMatch(
      /^the key sees no project and no billing account .* run with the key of a user who has access$/,
    );
  });

  it.each<[string, { given: Answer; want: RegExp }]>([
    [
      "refuses the key",
      {
        given: answer(401, { code: 401, message: "missing or invalid API key" }),
        want: /refused the API key \(401 to a search\)/,
      },
    ],
    [
      "gives no answer at all",
      {
        given: { status: 0, headers: {}, text: "no answer: connect ECONNREFUSED 127.0.0.1:9", json: undefined },
        want: /^no answer to a search: connect ECONNREFUSED 127\.0\.0\.1:9; nothing was checked$/,
      },
    ],
    ["answers 404 (search is not there)", { given: answer(404, {}), want: /is the base URL the interface's root/ }],
  ])("throws, asking nothing more, when the backend %s", async (_name, { given, want }) => {
    const asked: string[] = [];
    await expect(discoverAccess(answering({ "type:project": given }, asked), search)).rejects.toThrow(want);
    expect(asked).toEqual(["type:project"]);
  });
});
