/**
 * The streams of cases a run sends, for each operation: valid requests, requests with one constraint broken, and
 * requests without a usable key — each case with how its answer is judged. Valid requests of the three
 * operations with rules of their own are written for those rules (stateful-generators.ts): searches always,
 * PATCHes of the one machine and new keys only with writes. Every other operation's come from the spec
 * (spec-generators.ts). Broken and key-less requests name what no backend has, and the key ids they carry have
 * the run's prefix: a backend that accepts what it must refuse still changes nothing that is not the run's.
 */
import { type Generator, type GeneratorContext, type GeneratorOptions, generatorContext } from "./generator-context.js";
import { brokenGenerators, keylessGenerator, specValidGenerators } from "./spec-generators.js";
import { keyGenerator, searchGenerators, updateGenerator } from "./stateful-generators.js";

export {
  type Case,
  type Generator,
  type GeneratorOptions,
  keyedRequests,
  keyPrefixOf,
} from "./generator-context.js";
export { queryRuleQueries } from "./stateful-generators.js";

/** Every generator of the run, in the order the run takes them in turn. */
export function createGenerators(options: GeneratorOptions): Generator[] {
  const ctx = generatorContext(options);
  return options.operationIds.flatMap((operationId) => [
    ...validGenerators(ctx, operationId),
    ...brokenGenerators(ctx, operationId),
    keylessGenerator(ctx, operationId),
  ]);
}

/** The valid requests of an operation: its own rules' for the three stateful operations, the spec's for the rest. */
function validGenerators(ctx: GeneratorContext, operationId: string): Generator[] {
  switch (operationId) {
    case "searchResources":
      return searchGenerators(ctx);
    case "updateClusterMachine":
      return ctx.writes ? [updateGenerator(ctx, ctx.writes)] : [];
    case "createApiKey":
      return ctx.writes ? [keyGenerator(ctx)] : [];
    default:
      return specValidGenerators(ctx, operationId);
  }
}
