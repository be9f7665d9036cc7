/** One fact of the document: the name the facts module exports it under, the sentence that documents it, its value. */
export interface Fact {
  name: string;
  about: string;
  value: unknown;
}
/** Every fact of a bundled document; throws, naming the place, when the document lacks one. */
export declare function facts(doc: unknown): Fact[];
/** The text of src/generated/facts.ts for a bundled document. */
export declare function factsModule(doc: unknown, header: string): string;
