/** Valid bodies built from the spec's own named examples, for test upstreams and the benchmark. */
import { loadSpec } from "@compute-api/contract";

/** The value of a named example of the spec, such as `UpdateClusterMachineResponse`. */
export function example(name: string): unknown {
  const examples = loadSpec().components.examples as Record<string, { value: unknown }>;
  const found = examples[name];
  if (!found) throw new Error(`the spec has no example ${name}`);
  return structuredClone(found.value);
}

type Result = { resourceName: string; resourceType: string; score: number } & Record<string, unknown>;

/** A valid search response with n results (the spec caps a real one at 100), cycling the example's results. */
export function searchResponse(n: number): { results: Result[] } {
  const base = (example("SearchResourcesResponse") as { results: Result[] }).results;
  return {
    results: Array.from({ length: n }, (_, i) => {
      const result = structuredClone(base[i % base.length]!);
      result.resourceName = `${result.resourceName}-${i}`;
      (result[result.resourceType] as { id: string }).id += `-${i}`;
      return result;
    }),
  };
}
