/** The files the spec package publishes, relative to generated/ and to its dist/. */
export declare const published: readonly string[];
/** Copies the published files of generated/ into outDir (default the package's dist/), from scratch. */
export declare function build(outDir?: string): void;
