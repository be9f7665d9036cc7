/**
 * Requests with exactly one constraint of the spec broken — derived from the schemas by one mutator per keyword
 * (pattern, length, enum, const/not such as an UNSPECIFIED target, type, required, unknown field, minProperties
 * such as an empty PATCH, maxItems, uniqueItems such as duplicate volumeIds, the Decimal grammar such as a
 * negative price), and for parameters a missing required or an undeclared one — straight to the stub and through
 * the gateway. Each gets 400 with a field violation naming the broken field, and a refused PATCH changes nothing.
 */

import { type MutantInput, send, toRawRequest } from "@compute-api/conformance/testing";
import { errorBodyProblems } from "@compute-api/test-support";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { clusterState, expectNoProblems, violationsOf } from "./support/checks.js";
import { facts } from "./support/facts.js";
import { requests } from "./support/oracle.js";
import { checkProperty, count, flushCounts, seed } from "./support/property.js";
import { startTarget, type Target, type TargetName } from "./support/targets.js";

const file = "test/adversarial/broken-constraints.test.ts";
const operationIds = [...requests.shapes.keys()];

/** The constraints of each operation; PATCHes go to real machines of alice's projects, so a change would show. */
const sitesOf = (operationId: string) =>
  requests.mutants(
    operationId,
    operationId === "updateClusterMachine"
      ? { path: { projectId: fc.constantFrom("proj-alpha"), id: fc.constantFrom("cm-alpha-01", "cm-alpha-02") } }
      : {},
  );

describe.each<TargetName>(["stub", "gateway"])("one constraint broken, %s", (targetName) => {
  let target: Target;
  beforeAll(async () => {
    target = await startTarget(targetName);
  });
  afterAll(async () => {
    flushCounts();
    await target?.close();
  });

  /** Sends the mutant as alice and checks the answer; a PATCH to a real machine must leave its cluster as it was. */
  async function expectRefused(operationId: string, mutant: MutantInput): Promise<void> {
    const shape = requests.shapeOf(operationId);
    const { projectId = "", id = "" } = mutant.input.path;
    const machine = operationId === "updateClusterMachine" ? facts.machine(projectId, id) : undefined;
    const before = machine ? await clusterState(target.stubUrl, target.keys.alice, machine.clusterId) : undefined;
    const answer = await send(target.url, toRawRequest(shape, mutant.input, target.keys.alice));
    count(`${targetName} ${operationId} ${mutant.site} ${answer.status}`);
    const problems = errorBodyProblems(answer, [400]);
    const fields = violationsOf(answer.json).map((v) => v.field);
    if (!fields.includes(mutant.field))
      problems.push(`no violation names ${JSON.stringify(mutant.field)} (named: ${JSON.stringify(fields)})`);
    expectNoProblems(problems, answer, `${mutant.site}, sent ${JSON.stringify(mutant.input).slice(0, 300)}`);
    if (machine)
      expect(
        await clusterState(target.stubUrl, target.keys.alice, machine.clusterId),
        "a refused PATCH changed the cluster",
      ).toEqual(before);
  }

  it.each(operationIds)(
    "%s: every constraint, once each, is refused with 400 naming the field",
    async (operationId) => {
      for (const site of sitesOf(operationId)) {
        const [mutant] = fc.sample(site.arbitrary, { numRuns: 1, seed });
        if (mutant) await expectRefused(operationId, mutant);
      }
    },
  );

  it.each(operationIds)(
    "%s: every near miss of each pattern (a character of its own alphabet at either end) is refused naming the field",
    async (operationId) => {
      for (const site of sitesOf(operationId)) {
        for (const nearMiss of site.nearMisses) {
          const [mutant] = fc.sample(nearMiss, { numRuns: 1, seed });
          if (mutant) await expectRefused(operationId, mutant);
        }
      }
    },
  );

  it.each(operationIds)(
    "%s: any one constraint broken is refused with 400 naming the field (property)",
    async (operationId) => {
      const sites = sitesOf(operationId);
      await checkProperty(
        file,
        fc.oneof(...sites.map((s) => s.arbitrary)),
        (mutant) => expectRefused(operationId, mutant),
        30,
      );
    },
  );

  it("covers the constraints the issue names", () => {
    const sites = operationIds.flatMap((op) => sitesOf(op).map((s) => s.site));
    expect(sites).toEqual(
      expect.arrayContaining([
        "path projectId pattern",
        "path id maxLength",
        "body powerState enum",
        "body powerState not",
        "body state not",
        "body priceHr.value pattern",
        "body priceHr.value type",
        "body (root) minProperties",
        "body (root) additionalProperties",
        "body volumeIds maxItems",
        "body volumeIds uniqueItems",
        "body apikeyId minLength",
        "body apikeyId required",
        "query query pattern",
        "query query maxLength",
        "query query required",
        "query (unknown parameter)",
      ]),
    );
    // A negative price is a near miss of the non-negative Decimal grammar.
    const price = sitesOf("updateClusterMachine").find((s) => s.site === "body priceHr.value pattern");
    const prices = (price?.nearMisses ?? [])
      .flatMap((a) => fc.sample(a, { numRuns: 1, seed }))
      .map((m) => (m.input.body as { priceHr: { value: string } }).priceHr.value);
    expect(prices.some((p) => p.startsWith("-"))).toBe(true);
  });
});
