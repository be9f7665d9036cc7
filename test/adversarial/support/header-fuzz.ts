/**
 * Adversarial header values for the fuzz tests of every request header the stub server, the gateway and their
 * shared contract parse themselves, and the guard against super-linear parsing: a parse of a 16 KiB value must
 * take well under `parseBudgetMs`. A linear parser takes a fraction of a millisecond; the quadratic regular
 * expression `Prefer` once had took 200 ms on `\"` repeated.
 */
import fc from "fast-check";
import { runs, seed } from "./property.js";

/** The longest value the unit properties try: 16 KiB, Node's limit for a whole header section. */
export const maxHeaderLength = 16 * 1024;

/** The bound on one parse of a value of up to 16 KiB, in ms. */
export const parseBudgetMs = 50;

/** Cases per parser property (`FC_RUNS` overrides). */
export const headerRuns = runs(60);

/** What list, parameter and quoted-string syntax is made of (RFC 9110 §5.6), and the runs that once made regexps backtrack. */
const pieces = [
  '"',
  "\\",
  '\\"',
  '"\\',
  ",",
  ";",
  "=",
  " ",
  "\t",
  ";q=",
  ", ",
  '="',
  'a"',
  '"a',
  "\\\\",
  "*",
  "/",
  "+",
  "-",
  ".",
  "0",
  "1",
  "9",
];

/** A character node:http lets through in a header value: tab, visible ASCII, space, and obs-text (0x80–0xFF). */
const headerChar = fc.oneof(
  fc.constantFrom("\t"),
  fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)),
);

/**
 * Header values up to `maxLength` characters, all sendable by node:http: random ones, and ones made of long runs
 * of quotes, backslashes, commas, semicolons and `=`, mixed with `words` the parser looks for (`code=`, `Bearer `).
 */
export function headerValue(words: readonly string[], maxLength = maxHeaderLength): fc.Arbitrary<string> {
  const run = fc
    .tuple(fc.constantFrom(...pieces, ...words), fc.integer({ min: 1, max: maxLength }))
    .map(([piece, n]) => piece.repeat(n));
  const segment = fc.oneof(run, fc.string({ unit: headerChar, maxLength: 64 }), fc.constantFrom(...pieces, ...words));
  return fc.array(segment, { minLength: 1, maxLength: 8 }).map((parts) => parts.join("").slice(0, maxLength));
}

/** Values of exactly 16 KiB that make backtracking parsers slow: each piece repeated, after each word. */
export function adversarialValues(words: readonly string[]): string[] {
  return ["", ...words].flatMap((word) =>
    pieces.map((piece) => (word + piece.repeat(maxHeaderLength)).slice(0, maxHeaderLength)),
  );
}

/** The fastest of up to three parses of `value`, in ms: one slow run may be a GC pause, three are the parser. */
export function parseMs(parse: (value: string) => unknown, value: string): number {
  let best = Infinity;
  for (let i = 0; i < 3 && best >= parseBudgetMs / 5; i++) {
    const started = performance.now();
    parse(value);
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * Asserts that `parse` returns within the budget and never throws, for the adversarial values and `headerRuns`
 * random ones, and that `check` holds of each value and what it parsed to (the parser's own invariants).
 */
export function expectFastTotalParser<T>(
  parse: (value: string) => T,
  words: readonly string[],
  check: (value: string, parsed: T) => void = () => {},
): void {
  for (const value of adversarialValues(words)) {
    const ms = parseMs(parse, value);
    if (ms >= parseBudgetMs)
      throw new Error(
        `parsing ${JSON.stringify(value.slice(0, 40))}… (${value.length} characters) took ${ms.toFixed(1)} ms`,
      );
    check(value, parse(value));
  }
  fc.assert(
    fc.property(headerValue(words), (value) => {
      const ms = parseMs(parse, value);
      if (ms >= parseBudgetMs) throw new Error(`parsing ${value.length} characters took ${ms.toFixed(1)} ms`);
      check(value, parse(value));
    }),
    { numRuns: headerRuns, seed },
  );
}
