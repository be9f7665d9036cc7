/** The spec's types the rules are written in, read from the generated types (`@compute-api/spec/types`). */
import type { components } from "@compute-api/spec/types";

/** The spec's schemas by name, such as `Schemas["Cluster"]`. */
export type Schemas = components["schemas"];
