/**
 * Checks shared by the adversarial suites (an error answer is checked by @compute-api/test-support's
 * errorBodyProblems): reading a cluster's state to show that a refused request changed nothing.
 */

import { type Answer, jsonRequest, send } from "@compute-api/conformance/testing";
import { createSchemaValidator, type ErrorBody, loadSpec } from "@compute-api/contract";

export const spec = loadSpec();
export const validator = createSchemaValidator(spec);

/** Throws listing the problems, with the answer, when there are any. */
export function expectNoProblems(problems: string[], answer: Answer, what: string): void {
  if (problems.length > 0)
    throw new Error(`${what}: ${problems.join("; ")}\nanswer: ${answer.status} ${answer.text.slice(0, 600)}`);
}

/** The field violations of an error body (the conformance runner's reading of them). */
export { violationsOf } from "@compute-api/conformance/testing";

/** The ErrorInfo reasons of an error body. */
export function reasonsOf(body: unknown): string[] {
  return ((body as ErrorBody | undefined)?.details ?? []).flatMap((d) =>
    d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo" && "reason" in d ? [String(d.reason)] : [],
  );
}

/** The cluster as search shows it to a user who may access it (from the stub itself, or through a gateway). */
export async function clusterState(url: string, apiKey: string, clusterId: string): Promise<unknown> {
  const answer = await send(
    url,
    jsonRequest("GET", `/v1/resources/search?query=${encodeURIComponent(`type:cluster ${clusterId}`)}`, apiKey),
  );
  const results = (answer.json as { results?: { cluster?: { id?: string } }[] } | undefined)?.results ?? [];
  const cluster = results.find((r) => r.cluster?.id === clusterId)?.cluster;
  if (answer.status !== 200 || !cluster)
    throw new Error(`cannot read cluster ${clusterId}: ${answer.status} ${answer.text.slice(0, 200)}`);
  return cluster;
}

/** A normal request: the target still answers a search correctly. */
export async function expectHealthy(url: string, apiKey: string): Promise<void> {
  const answer = await send(url, jsonRequest("GET", "/v1/resources/search?query=type%3Aproject", apiKey));
  const errors = validator.validate("#/components/schemas/SearchResourcesResponse", answer.json);
  if (
    answer.status !== 200 ||
    errors.length > 0 ||
    ((answer.json as { results: unknown[] }).results?.length ?? 0) === 0
  ) {
    throw new Error(`a normal search afterwards was answered ${answer.status} ${answer.text.slice(0, 300)}`);
  }
}
