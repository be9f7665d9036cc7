/** What the schema tests of this package share: the fast-check seed and small documents to generate from. */
import type { OpenApiDocument } from "@compute-api/contract";

/** FC_SEED, or a new seed each run (as the adversarial suite draws them), so that runs cover more cases. */
export const seed = process.env.FC_SEED ? Number(process.env.FC_SEED) : Math.floor(Math.random() * 2 ** 31);

/** A document holding the given component schemas, for keyword-by-keyword cases. */
export const documentWith = (schemas: Record<string, unknown>): OpenApiDocument => ({
  openapi: "3.1.0",
  info: { title: "t", version: "1" },
  paths: {},
  components: { schemas },
});
