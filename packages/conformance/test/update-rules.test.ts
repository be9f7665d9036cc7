import { describe, expect, it } from "vitest";
import type { Verdicts } from "../src/checks.js";
import type { Answer } from "../src/http.js";
import { type MachineModel, patchVerdicts } from "../src/update-rules.js";

const answer = (status: number, json: unknown): Answer => ({ status, headers: {}, text: JSON.stringify(json), json });
const fields = ["id", "projectId", "cpuCores", "powerState", "priceHr", "volumeIds", "createTime"];
const before = { id: "cm", projectId: "p", cpuCores: 8, powerState: "ON", priceHr: { value: "2" }, volumeIds: ["v"] };

describe("patchVerdicts", () => {
  it.each<[string, { given: { body: Record<string, unknown>; answer: Answer }; want: Verdicts }]>([
    [
      "the fields sent set, the price normalized, the others as they were",
      {
        given: { body: { priceHr: { value: "+.5" } }, answer: answer(200, { ...before, priceHr: { value: "0.5" } }) },
        want: { partial_update: null, price_normalization: null },
      },
    ],
    [
      "a price stored as sent",
      {
        given: { body: { priceHr: { value: "5.E0" } }, answer: answer(200, { ...before, priceHr: { value: "5.E0" } }) },
        want: { partial_update: null, price_normalization: 'priceHr "5.E0" answered as "5.E0", not "5"' },
      },
    ],
    [
      "an answer of only the fields sent",
      {
        given: { body: { powerState: "OFF" }, answer: answer(200, { id: "cm", projectId: "p", powerState: "OFF" }) },
        want: {
          partial_update:
            'the answer has cpuCores absent, not 8; priceHr absent, not {"value":"2"}; volumeIds absent, not ["v"]',
        },
      },
    ],
    [
      "a field sent but not set, and another one changed",
      {
        given: {
          body: { powerState: "OFF", priceHr: { value: "1" } },
          answer: answer(200, { ...before, cpuCores: 4, priceHr: { value: "2" } }),
        },
        want: {
          partial_update: 'the answer has cpuCores 4, not 8; powerState "ON", not "OFF"; priceHr "2", not 1',
          price_normalization: 'priceHr "1" answered as "2", not "1"',
        },
      },
    ],
    [
      "a refusal: the response checks'",
      { given: { body: { powerState: "OFF" }, answer: answer(400, { code: 400 }) }, want: {} },
    ],
  ])("%s", (_name, { given, want }) => {
    const model: MachineModel = { machine: { ...before }, fields };
    expect(patchVerdicts(given.body, given.answer, model)).toEqual(want);
  });

  it("keeps what a 200 answered, and what it left out as it was", () => {
    const model: MachineModel = { machine: { ...before }, fields };
    patchVerdicts({ powerState: "OFF" }, answer(200, { id: "cm", powerState: "OFF", createTime: "t" }), model);
    expect(model.machine).toEqual({ ...before, powerState: "OFF", createTime: "t" });
  });
});
