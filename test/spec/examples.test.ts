/** Every named example of the spec validates against the schema of the place it is used. */
import { describe, expect, it } from "vitest";
import { spec, validator } from "../support/spec.js";

type MediaType = { schema?: { $ref?: string }; examples?: Record<string, { $ref?: string; value?: unknown }> };

const examples = spec.components.examples as Record<string, { value: unknown; summary?: string }>;

/** Every (example name, schema pointer) pair of the document: operations' bodies and shared responses. */
function exampleUses(): [string, string, string][] {
  const uses: [string, string, string][] = [];
  const visitContent = (where: string, pointer: string, content: Record<string, MediaType> | undefined) => {
    for (const [type, media] of Object.entries(content ?? {})) {
      for (const [name, ex] of Object.entries(media.examples ?? {})) {
        const exName = ex.$ref ? ex.$ref.replace("#/components/examples/", "") : name;
        uses.push([`${where} ${type} ${name}`, exName, `${pointer}/content/${type.replace("/", "~1")}/schema`]);
      }
    }
  };
  for (const [path, item] of Object.entries(spec.paths)) {
    for (const [method, op] of Object.entries(item)) {
      const operation = op as {
        requestBody?: { content?: Record<string, MediaType> };
        responses?: Record<string, { $ref?: string; content?: Record<string, MediaType> }>;
      };
      const base = `#/paths/${path.replaceAll("/", "~1")}/${method}`;
      if (operation.requestBody)
        visitContent(`${method} ${path} request`, `${base}/requestBody`, operation.requestBody.content);
      for (const [status, response] of Object.entries(operation.responses ?? {})) {
        if (!response.$ref)
          visitContent(`${method} ${path} ${status}`, `${base}/responses/${status}`, response.content);
      }
    }
  }
  for (const [name, response] of Object.entries(
    spec.components.responses as Record<string, { content?: Record<string, MediaType> }>,
  )) {
    visitContent(`response ${name}`, `#/components/responses/${name}`, response.content);
  }
  return uses;
}

describe("examples", () => {
  const uses = exampleUses();

  it("every example component is used, and has a summary", () => {
    expect(new Set(uses.map(([, name]) => name))).toEqual(new Set(Object.keys(examples)));
    for (const [name, ex] of Object.entries(examples)) expect(ex.summary, name).toBeTruthy();
  });

  it.each(uses)("%s (%s) validates", (_where, name, pointer) => {
    const pointerWithRef = pointer;
    expect(validator.validate(pointerWithRef, examples[name]?.value)).toEqual([]);
  });

  it("each error example's code matches the status of the response it illustrates", () => {
    const statusOf: Record<string, number> = {};
    for (const item of Object.values(spec.paths)) {
      for (const op of Object.values(item)) {
        for (const [status, r] of Object.entries(
          (op as { responses?: Record<string, { $ref?: string }> }).responses ?? {},
        )) {
          if (r.$ref) statusOf[r.$ref.replace("#/components/responses/", "")] = Number(status);
        }
      }
    }
    const responses = spec.components.responses as Record<string, { content: Record<string, MediaType> }>;
    for (const [name, r] of Object.entries(responses)) {
      const ex = Object.values(r.content["application/json"]?.examples ?? {})[0];
      const value = examples[ex?.$ref?.replace("#/components/examples/", "") ?? ""]?.value as { code: number };
      expect(value.code, name).toBe(statusOf[name]);
    }
  });
});
