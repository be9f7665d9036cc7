/** The files the spec package publishes as they are, relative to generated/ and to its dist/. */
export declare const published: readonly string[];
/**
 * Copies the published files of generatedDir into outDir (default the package's dist/) and writes the sources of
 * `./types` and `./facts` into srcDir (default its src/generated/) when their text changed.
 */
export declare function build(outDir?: string, generatedDir?: string, srcDir?: string): void;
/** The TypeScript sources of `./types` and `./facts` that the files of generatedDir make, by file name. */
export declare function sources(generatedDir?: string): Record<string, string>;
