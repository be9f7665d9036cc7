import fc from "fast-check";
import { describe, expect, it } from "vitest";
import type { Generator } from "../src/generators.js";
import type { Answer, RawRequest } from "../src/http.js";
import type { Replay } from "../src/results.js";
import { runLoop } from "../src/run-loop.js";

const ok: Answer = { status: 200, headers: {}, text: "{}", json: {} };

/** A generator of GETs of `/<name>/<n>`, its cases judged by not_a_server_error. */
const generatorOf = (name: string): Generator => ({
  name,
  arbitrary: fc.nat().map((n) => ({
    operationId: name,
    request: { method: "GET", path: `/${name}/${n}` },
    judge: (answer: Answer) => ({ not_a_server_error: answer.status >= 500 ? "5xx" : null }),
  })),
});

/** Runs the loop over generators `a` and `b`; resolves with what was sent and heard. */
async function loop(runs: number, seed = 1, deadline?: number) {
  const sent: RawRequest[] = [];
  const heard: { operationId: string; verdicts: unknown; replay: Replay }[] = [];
  await runLoop({
    generators: [generatorOf("a"), generatorOf("b")],
    seed,
    runs,
    deadline,
    exchange: async (_operationId, request) => {
      sent.push(request);
      return ok;
    },
    onVerdicts: (c, verdicts, replay) => heard.push({ operationId: c.operationId, verdicts, replay }),
  });
  return { sent, heard };
}

describe("runLoop", () => {
  it.each<[string, { given: { runs: number; deadline?: number }; want: { a: number; b: number } }]>([
    ["each generator gives its runs", { given: { runs: 25 }, want: { a: 25, b: 25 } }],
    ["fewer runs than a round", { given: { runs: 3 }, want: { a: 3, b: 3 } }],
    ["a deadline already past sends nothing", { given: { runs: 25, deadline: -1 }, want: { a: 0, b: 0 } }],
  ])("%s", async (_name, { given, want }) => {
    const { sent, heard } = await loop(given.runs, 1, given.deadline);
    const count = (name: string) => sent.filter((r) => r.path.startsWith(`/${name}/`)).length;
    expect({ a: count("a"), b: count("b") }).toEqual(want);
    expect(heard.map((h) => h.verdicts)).toEqual(sent.map(() => ({ not_a_server_error: null })));
  });

  it("takes the generators in turn", async () => {
    const { heard } = await loop(4);
    expect(heard.map((h) => h.operationId)).toEqual(["a", "b", "a", "b", "a", "b", "a", "b"]);
  });

  it("sends the same cases for the same seed, each replayable from its seed and index", async () => {
    const first = await loop(12, 42);
    expect((await loop(12, 42)).sent).toEqual(first.sent);
    expect((await loop(12, 43)).sent).not.toEqual(first.sent);
    for (const [i, { replay }] of first.heard.entries()) {
      const replayed = fc.sample(replay.generator.arbitrary, { seed: replay.seed, numRuns: replay.index + 1 });
      expect(replayed[replay.index]?.request).toEqual(first.sent[i]);
    }
  });
});
