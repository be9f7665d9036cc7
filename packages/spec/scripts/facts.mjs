// The facts module (generated/facts.ts): the constants the bundled document states, read from it by name, so
// that code imports them from `@compute-api/spec/facts` instead of typing them again. Each fact names where in the
// document it comes from; a document without that place fails the build with that name.

/** @param {unknown} v */
const isObject = (v) => typeof v === "object" && v !== null && !Array.isArray(v);

/** The node at a JSON pointer of the document, following `$ref`s on the way; throws naming the pointer. */
function at(doc, pointer) {
  let node = doc;
  for (const raw of pointer.split("/").slice(1)) {
    node = deref(doc, node);
    const key = raw.replaceAll("~1", "/").replaceAll("~0", "~");
    if (!isObject(node) && !Array.isArray(node)) throw new Error(`the document has no ${pointer}`);
    node = node[key];
    if (node === undefined) throw new Error(`the document has no ${pointer}`);
  }
  return deref(doc, node);
}

/** A `$ref` of the document resolved (local references only, as in the bundle); any other node as it is. */
function deref(doc, node) {
  let seen = 0;
  while (isObject(node) && typeof node.$ref === "string" && node.$ref.startsWith("#/")) {
    if (++seen > 32) throw new Error(`a $ref circle at ${node.$ref}`);
    node = at(doc, node.$ref.slice(1));
  }
  return node;
}

/** A number the document must state at a pointer. */
function number(doc, pointer) {
  const value = at(doc, pointer);
  if (typeof value !== "number") throw new Error(`${pointer} is not a number`);
  return value;
}

/** Every schema of components/schemas that is an enum, by name, with its values. */
function namedEnums(doc) {
  const schemas = at(doc, "#/components/schemas");
  return Object.fromEntries(
    Object.entries(schemas).flatMap(([name, schema]) =>
      isObject(schema) && Array.isArray(schema.enum) ? [[name, schema.enum]] : [],
    ),
  );
}

/**
 * The fields of the schema (through `$ref`s, branches, properties and array items) marked `x-secret: true`, each
 * as its path in the answer: `key`, or `results[].cluster.token` for one deeper down.
 */
function secretFields(doc, schema, at = "", seen = new Set()) {
  const node = deref(doc, schema);
  if (!isObject(node) || seen.has(node)) return [];
  const inner = new Set(seen).add(node);
  if (node["x-secret"] === true) return [at];
  const fields = [];
  for (const [name, property] of Object.entries(isObject(node.properties) ? node.properties : {})) {
    fields.push(...secretFields(doc, property, at === "" ? name : `${at}.${name}`, inner));
  }
  if (node.items !== undefined) fields.push(...secretFields(doc, node.items, `${at}[]`, inner));
  for (const key of ["allOf", "oneOf", "anyOf"]) {
    const branches = Array.isArray(node[key]) ? node[key] : [];
    for (const branch of branches) fields.push(...secretFields(doc, branch, at, inner));
  }
  return fields;
}

/** The operations, by operationId, whose 2xx JSON answer holds a secret field, with those fields. */
function secretResponses(doc) {
  const found = {};
  for (const item of Object.values(isObject(doc.paths) ? doc.paths : {})) {
    for (const operation of Object.values(deref(doc, item))) {
      if (!isObject(operation) || typeof operation.operationId !== "string") continue;
      for (const [status, response] of Object.entries(isObject(operation.responses) ? operation.responses : {})) {
        if (!status.startsWith("2")) continue;
        const media = deref(doc, response)?.content?.["application/json"];
        const fields = isObject(media) ? secretFields(doc, media.schema) : [];
        if (fields.length > 0) found[operation.operationId] = [...new Set(fields)];
      }
    }
  }
  return found;
}

/**
 * Where a request names a resource by its identifier (`x-references: <schema>`): the JSON pointer of each such
 * schema in the document, with the schema of the resource it must name.
 */
function references(doc) {
  const found = [];
  const visit = (node, pointer) => {
    if (Array.isArray(node)) node.forEach((child, i) => visit(child, `${pointer}/${i}`));
    if (!isObject(node)) return;
    if (typeof node["x-references"] === "string") found.push({ pointer, resource: node["x-references"] });
    for (const [key, child] of Object.entries(node)) {
      if (!["example", "examples", "default", "const", "enum"].includes(key)) {
        visit(child, `${pointer}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`);
      }
    }
  };
  visit(doc, "#");
  const schemas = at(doc, "#/components/schemas");
  for (const { pointer, resource } of found) {
    if (!isObject(schemas[resource])) throw new Error(`${pointer}: x-references names no schema ${resource}`);
  }
  return found;
}

/** The search query's term rules: the `x-search-terms` extension of the SearchQuery parameter. */
function searchTerms(doc) {
  const terms = at(doc, "#/components/parameters/SearchQuery/schema/x-search-terms");
  const { maxTerms, typePrefix, maxTypeTerms } = terms;
  if (typeof maxTerms !== "number" || typeof typePrefix !== "string" || typeof maxTypeTerms !== "number") {
    throw new Error("SearchQuery's schema's x-search-terms needs maxTerms, typePrefix and maxTypeTerms");
  }
  return { maxTerms, typePrefix, maxTypeTerms };
}

/** Every fact: the name the module exports it under, the sentence that documents it, its value. */
export function facts(doc) {
  const schemas = "#/components/schemas";
  const fact = (name, about, value) => ({ name, about, value });
  return [
    fact("schemaNames", "The names of every schema of components/schemas.", Object.keys(at(doc, schemas))),
    fact("enums", "Every named enum of components/schemas, with its values in the document's order.", namedEnums(doc)),
    fact(
      "searchResourceTypes",
      "The resource types a search result names in `resourceType`: SearchResult's discriminator mapping.",
      Object.keys(at(doc, `${schemas}/SearchResult/discriminator/mapping`)),
    ),
    fact(
      "maxSearchResults",
      "The most results one search answers: the response's results `maxItems`.",
      number(doc, `${schemas}/SearchResourcesResponse/properties/results/maxItems`),
    ),
    fact(
      "searchTerms",
      "The search query's terms (the SearchQuery parameter schema's `x-search-terms`): at most `maxTerms` " +
        "besides at most `maxTypeTerms` terms that start with `typePrefix`.",
      searchTerms(doc),
    ),
    fact(
      "maxDecimalLength",
      "The most characters a Decimal's value may have: Decimal.value's `maxLength`.",
      number(doc, `${schemas}/Decimal/properties/value/maxLength`),
    ),
    fact(
      "maxRequestBodyBytes",
      "The largest request body, in bytes: the document's `x-max-request-body-bytes`.",
      number(doc, "#/x-max-request-body-bytes"),
    ),
    fact(
      "maxVolumeIds",
      "The most volumes one update attaches: UpdateClusterMachineRequest.volumeIds' `maxItems`.",
      number(doc, `${schemas}/UpdateClusterMachineRequest/properties/volumeIds/maxItems`),
    ),
    fact(
      "references",
      "Where a request names a resource by identifier (`x-references`): the schema's JSON pointer and the " +
        "resource's schema name; such an identifier must name an existing resource the caller may use.",
      references(doc),
    ),
    fact(
      "secretResponses",
      "The operations whose success answer holds a secret (a property marked `x-secret: true`), with those " +
        "fields: shown once, never cached, never logged.",
      secretResponses(doc),
    ),
  ];
}

/** The text of generated/facts.ts for the document. */
export function factsModule(doc, header) {
  const lines = [`/**\n * ${header}\n * The facts the document states, read from it by scripts/facts.mjs.\n */`];
  for (const { name, about, value } of facts(doc)) {
    const literal = typeof value === "object" ? `${JSON.stringify(value, null, 2)} as const` : JSON.stringify(value);
    lines.push(`\n/** ${about} */\nexport const ${name} = ${literal};`);
  }
  return `${lines.join("\n")}\n`;
}
