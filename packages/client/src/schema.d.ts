// In the repository this re-exports the generated types; `npm run build` copies the generated file itself to
// dist/schema.d.ts, so `./schema.js` resolves to the same types before and after the build.
export type * from "@compute-api/spec/types";
