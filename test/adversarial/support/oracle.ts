/**
 * Schema-valid traffic biased towards what exists, and what each answer to it must be. A valid request never
 * gets a 5xx nor a 400 for a schema reason: it gets 200, 403, 404 or 409 exactly when the data says so, or a 400
 * naming only a rule the schema cannot express — the reasons the stub gives for them
 * (packages/stub-server/src/store/store.ts and search-query.ts), each checked against its cause. Shared by the
 * property tests and the soak.
 */
import { normalizeDecimal, type UpdateClusterMachineRequest } from "@compute-api/client";
import { createRequestArbitraries, type RequestInput, searchResourceTypes } from "@compute-api/conformance/testing";
import type { ErrorBody } from "@compute-api/contract";
import fc from "fast-check";
import { reasonsOf, spec, validator, violationsOf } from "./checks.js";
import { facts } from "./facts.js";
import type { UserId } from "./targets.js";

/** Request arbitraries of the bundled spec. */
export const requests = createRequestArbitraries(spec);

/** Resource types search knows: the discriminator of SearchResult. */
export const resourceTypes = searchResourceTypes(spec);

// Rules the schema cannot express, by the reason the stub gives (store.ts and search-query.ts).
const notInProject = "not-found";
const tooLongNormalized = "maxLength";
const totalsOutOfRange = "range";
const noTerms = "terms-required";
const typeRepeated = "type-repeated";
const typeUnknown = "type-unknown";
const tooManyTerms = "too-many-terms";
/** The most terms a query may hold besides its `type:` term (the operation's description). */
const maxTerms = 8;

const user = fc.constantFrom(...facts.users);
const resourceId = requests.arbitraries.forPointer("#/components/schemas/ResourceId") as fc.Arbitrary<string>;

/** PATCH requests whose volumes are mostly those of the project, else any volume of the data or a generated id. */
export function patchInputs(projectId: string | undefined): fc.Arbitrary<RequestInput> {
  const own = [...facts.volumesOf(projectId ?? "")];
  const volume = fc.oneof(
    ...(own.length > 0 ? [{ arbitrary: fc.constantFrom(...own), weight: 3 }] : []),
    { arbitrary: fc.constantFrom(...facts.volumeIds), weight: 1 },
    { arbitrary: resourceId, weight: 1 },
  );
  // Half the lists are made only of the project's own volumes, so that the 200 path is taken with volumeIds too.
  return requests.valid("updateClusterMachine", {
    body: (path, fallback) => {
      const at = path.join("/");
      if (at === "volumeIds" && own.length > 0)
        return fc.oneof(fc.uniqueArray(fc.constantFrom(...own), { maxLength: own.length }), fallback());
      return at === "volumeIds/*" ? volume : undefined;
    },
  });
}
const patchInputsOf = new Map(facts.projectIds.map((p) => [p, patchInputs(p)]));

/** PATCHes of a real machine by a user who may access its project. */
export const readerPatches = fc.constantFrom(...facts.machines).chain((machine) =>
  fc.record({
    user: fc.constantFrom(...facts.users.filter((u) => facts.projectsOf(u).has(machine.projectId))),
    input: (patchInputsOf.get(machine.projectId) ?? patchInputs(machine.projectId)).map((input) => ({
      ...input,
      path: { projectId: machine.projectId, id: machine.id },
    })),
  }),
);

/**
 * PATCH cases: a real (project, machine) pair, a real project with a generated machine id, or generated ids
 * (4:1:1), mostly by a user who may access the project.
 */
export const patchCases: fc.Arbitrary<{ user: UserId; input: RequestInput }> = fc
  .option(
    fc.oneof(
      { arbitrary: fc.constantFrom(...facts.machines), weight: 4 },
      {
        arbitrary: fc.record({
          projectId: fc.constantFrom(...facts.projectIds),
          id: resourceId,
          clusterId: fc.constant(""),
        }),
        weight: 1,
      },
    ),
    { freq: 5 },
  )
  .chain((machine) => {
    if (!machine) return fc.record({ user, input: patchInputs(undefined) });
    const readers = facts.users.filter((u) => facts.projectsOf(u).has(machine.projectId));
    return fc.record({
      user: fc.oneof({ arbitrary: fc.constantFrom(...readers), weight: 3 }, { arbitrary: user, weight: 1 }),
      input: (patchInputsOf.get(machine.projectId) ?? patchInputs(machine.projectId)).map((input) => ({
        ...input,
        path: { projectId: machine.projectId, id: machine.id },
      })),
    });
  });

/** createApiKey bodies: from the schema, or an id the user already has (for the 409 path). */
export const keyCases = fc.record({
  user,
  input: fc.oneof(
    { arbitrary: requests.valid("createApiKey"), weight: 3 },
    {
      arbitrary: fc
        .constantFrom(...facts.initialKeyIds("alice"))
        .map((id): RequestInput => ({ path: {}, query: [], body: { apikeyId: id } })),
      weight: 1,
    },
  ),
});

/** Search queries: from the schema, or made of words of the data, `type:` terms of any case and generated words. */
const searchQuery = requests.arbitraries.forPointer(
  "#/components/parameters/SearchQuery/schema",
) as fc.Arbitrary<string>;
const typeTerm = fc
  .tuple(fc.constantFrom(...resourceTypes, "planet"), fc.boolean())
  .map(([t, upper]) => `type:${upper ? t.toUpperCase() : t}`);
const word = fc.oneof(
  { arbitrary: fc.constantFrom(...facts.words), weight: 3 },
  { arbitrary: typeTerm, weight: 2 },
  { arbitrary: searchQuery, weight: 1 },
);
// Mostly one or two words; sometimes 7 to 10 words of the data and perhaps a `type:` term, around the limit of 8
// terms besides it.
const manyWords = fc
  .tuple(fc.array(fc.constantFrom(...facts.words), { minLength: 7, maxLength: 10 }), fc.option(typeTerm))
  .map(([words, type]) => (type === null ? words : [...words, type]));
const wordLists = fc.oneof(
  { arbitrary: fc.array(word, { minLength: 0, maxLength: 2 }), weight: 4 },
  { arbitrary: manyWords, weight: 1 },
);
const composed = fc
  .tuple(wordLists, fc.constantFrom(" ", "  ", "\u00a0", " \u2003"))
  .map(([words, gap]) => words.join(gap) || gap);
export const searchCases = fc.record({
  user,
  input: fc
    .oneof({ arbitrary: composed, weight: 3 }, { arbitrary: searchQuery, weight: 1 })
    .filter((q) => validator.validate("#/components/parameters/SearchQuery/schema", q).length === 0)
    .map((query): RequestInput => ({ path: {}, query: [["query", query]] })),
});

/** An answer: its status and parsed body. */
export interface Outcome {
  status: number;
  body: unknown;
}

/** Problems common to every answer to a valid request: no 5xx, a documented success or an ErrorBody whose code is the status. */
export function shapeProblems(operationId: string, outcome: Outcome): string[] {
  if (outcome.status >= 500) return [`${outcome.status}: a valid request must never get a 5xx`];
  const pointer = outcome.status === 200 ? requests.shapeOf(operationId).response : "#/components/schemas/ErrorBody";
  const problems = validator.validate(pointer, outcome.body).map((e) => `body ${e.instancePath} ${e.message}`);
  if (outcome.status !== 200 && (outcome.body as ErrorBody | undefined)?.code !== outcome.status)
    problems.push("code is not the HTTP status");
  return problems;
}

/** The 400 violations that are not one of the allowed (field, reason) pairs, plus a 400 with none at all. */
function unexpectedViolations(
  body: unknown,
  allowed: (field: string, reason: string | undefined) => boolean,
): string[] {
  const violations = violationsOf(body);
  if (violations.length === 0) return ["a 400 without field violations"];
  return violations
    .filter((v) => !allowed(v.field, v.reason))
    .map((v) => `a 400 for a schema reason: ${v.field} ${v.reason ?? ""} (${v.description})`);
}

/** What is wrong with the answer to a valid PATCH by the user. */
export function patchProblems(u: UserId, input: RequestInput, outcome: Outcome): string[] {
  const { projectId = "", id = "" } = input.path;
  const body = input.body as UpdateClusterMachineRequest;
  const problems = shapeProblems("updateClusterMachine", outcome);
  const volumes = facts.volumesOf(projectId);
  const foreign = new Set((body.volumeIds ?? []).flatMap((v, i) => (volumes.has(v) ? [] : [i])));
  const normalized = body.priceHr ? normalizeDecimal(body.priceHr.value) : undefined;
  const tooLong = (normalized?.length ?? 0) > 64;
  const expected = !facts.projectsOf(u).has(projectId)
    ? 403
    : !facts.machine(projectId, id)
      ? 404
      : foreign.size > 0 || tooLong
        ? 400
        : undefined;
  if (expected !== undefined && outcome.status !== expected)
    problems.push(`status ${outcome.status}, expected ${expected}`);
  if (expected === undefined && outcome.status !== 200 && outcome.status !== 400)
    problems.push(`status ${outcome.status}, expected 200 or 400`);
  if (outcome.status === 400) {
    problems.push(
      ...unexpectedViolations(outcome.body, (field, reason) => {
        const index = /^volumeIds\[(\d+)\]$/.exec(field)?.[1];
        if (index !== undefined) return reason === notInProject && foreign.has(Number(index));
        if (field === "priceHr.value" && reason === tooLongNormalized) return tooLong;
        return field === "priceHr.value" && reason === totalsOutOfRange;
      }),
    );
  }
  const data = outcome.body as UpdateClusterMachineRequest & { priceHr?: { value: string } };
  if (outcome.status === 200) {
    if (body.powerState !== undefined && data.powerState !== body.powerState)
      problems.push(`powerState ${data.powerState}, sent ${body.powerState}`);
    if (body.state !== undefined && data.state !== body.state) problems.push(`state ${data.state}, sent ${body.state}`);
    if (normalized !== undefined && data.priceHr?.value !== normalized)
      problems.push(`priceHr ${data.priceHr?.value}, expected ${normalized}`);
    if (body.volumeIds !== undefined && JSON.stringify(data.volumeIds) !== JSON.stringify(body.volumeIds))
      problems.push(`volumeIds ${JSON.stringify(data.volumeIds)}`);
  }
  return problems;
}

/** What is wrong with the answer to a valid createApiKey by the user, given the key ids the user has. */
export function createKeyProblems(
  u: UserId,
  input: RequestInput,
  outcome: Outcome,
  keyIds: ReadonlySet<string>,
): string[] {
  const body = input.body as { apikeyId: string };
  const problems = shapeProblems("createApiKey", outcome);
  const expected = !facts.mayCreateKeys(u) ? 403 : keyIds.has(body.apikeyId) ? 409 : 200;
  if (outcome.status !== expected) problems.push(`status ${outcome.status}, expected ${expected}`);
  if (outcome.status === 409 && !reasonsOf(outcome.body).includes("ALREADY_EXISTS"))
    problems.push("a 409 without ErrorInfo ALREADY_EXISTS");
  if (outcome.status === 200 && (outcome.body as { id?: string }).id !== body.apikeyId)
    problems.push(`id ${(outcome.body as { id?: string }).id}, sent ${body.apikeyId}`);
  return problems;
}

/** What is wrong with the answer to a valid search by the user: the query rules of the operation's description. */
export function searchProblems(u: UserId, input: RequestInput, outcome: Outcome): string[] {
  const query = input.query.find(([k]) => k === "query")?.[1] ?? "";
  const problems = shapeProblems("searchResources", outcome);
  // A user who may not search is refused whatever the query says.
  if (!facts.maySearch(u)) {
    if (outcome.status !== 403) problems.push(`status ${outcome.status}, expected 403 for a user who may not search`);
    if (outcome.status === 403 && !reasonsOf(outcome.body).includes("PERMISSION_DENIED"))
      problems.push("a 403 without ErrorInfo PERMISSION_DENIED");
    return problems;
  }
  const words = query.split(/\s+/u).filter((w) => w !== "");
  const types = words.filter((w) => w.toLowerCase().startsWith("type:")).map((w) => w.slice(5).toLowerCase());
  const rule =
    words.length === 0
      ? noTerms
      : types.length > 1
        ? typeRepeated
        : types.length === 1 && !resourceTypes.some((t) => t.toLowerCase() === types[0])
          ? typeUnknown
          : words.length - types.length > maxTerms
            ? tooManyTerms
            : undefined;
  if (rule && outcome.status !== 400) problems.push(`status ${outcome.status}, expected 400 ${rule}`);
  if (!rule && outcome.status !== 200) problems.push(`status ${outcome.status}, expected 200`);
  if (outcome.status === 400)
    problems.push(...unexpectedViolations(outcome.body, (field, reason) => field === "query" && reason === rule));
  const results =
    outcome.status === 200
      ? ((outcome.body as { results?: { resourceName: string; resourceType: string; score: number }[] }).results ?? [])
      : [];
  const visible = facts.visibleTo(u);
  for (const r of results) {
    if (!visible.has(r.resourceName.split("/").slice(0, 2).join("/")))
      problems.push(`${r.resourceName} is not visible to ${u}`);
    if (types[0] && r.resourceType.toLowerCase() !== types[0])
      problems.push(`${r.resourceType} result for type:${types[0]}`);
  }
  const order = results.map((r) => [r.score, r.resourceName] as const);
  const sorted = [...order].sort(([s1, n1], [s2, n2]) => s2 - s1 || (n1 < n2 ? -1 : n1 > n2 ? 1 : 0));
  if (JSON.stringify(order) !== JSON.stringify(sorted))
    problems.push("results are not best first, then by resourceName");
  return problems;
}
