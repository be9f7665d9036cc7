/**
 * Adversarial header values for the fuzz tests of every request header the stub server, the gateway and their
 * shared contract parse themselves, and the guard against super-linear parsing: the parse of a long value must not
 * take many times longer than the parses of its pieces (`parseGrowth`). A linear parser takes as long for both; the
 * quadratic regular expression `Prefer` once had took 200 ms on 16 KiB of `\"`, about 100 times its pieces'.
 * Both are timed in the same process, one right after the other, so another program's load slows both alike.
 */
import fc from "fast-check";
import { runs, seed } from "./property.js";

/** The longest value the unit properties try: 16 KiB, Node's limit for a whole header section. */
export const maxHeaderLength = 16 * 1024;

/**
 * A parse of a whole value faster than this, in ms, is not looked at further: it is fast whatever its growth (a
 * linear parser reads 16 KiB in a fraction of a millisecond). It never fails a parse, it only spares the comparison.
 */
const fastParseMs = 2;

/** The length of the pieces a long value is cut into to time its parse against. */
const pieceLength = 128;

/**
 * How many times longer than its pieces' parses a value's parse may take: 1 for a linear parser, about the number of
 * pieces (128 for 16 KiB) for a quadratic one; a wide margin on both sides.
 */
export const maxParseGrowth = 10;

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

/** The fastest of up to `tries` runs of `run`, in ms, stopping at one below `enough`: the slow runs are another program's. */
function fastestMs(run: () => void, tries: number, enough = 0): number {
  let best = Infinity;
  for (let i = 0; i < tries && best >= enough; i++) {
    const started = performance.now();
    run();
    best = Math.min(best, performance.now() - started);
  }
  return best;
}

/**
 * How many times longer the parse of `value` takes than the parses of its pieces of `pieceLength` characters, one
 * after the other (the same characters in all): about 1 for a parser linear in the length, about the number of
 * pieces for a quadratic one; 0 when a parse of the whole is fast anyway, or the value too short to cut into 16.
 * Each time is the fastest of several runs, and a high growth is measured again before it is returned.
 */
export function parseGrowth(parse: (value: string) => unknown, value: string): number {
  const count = Math.floor(value.length / pieceLength);
  if (count < 16) return 0;
  const pieces = Array.from({ length: count }, (_, i) => value.slice(i * pieceLength, (i + 1) * pieceLength));
  let growth = 0;
  for (let round = 0; round < 3; round++) {
    const whole = fastestMs(() => parse(value), 5, fastParseMs);
    if (whole < fastParseMs) return 0;
    const parts = fastestMs(() => {
      for (const piece of pieces) parse(piece);
    }, 5);
    growth = whole / Math.max(parts, 1e-3);
    if (growth < maxParseGrowth) return growth;
  }
  return growth;
}

/** Throws, naming the value, when its parse grows faster than linearly with its length (`parseGrowth`). */
function expectLinearParse(parse: (value: string) => unknown, value: string): void {
  const growth = parseGrowth(parse, value);
  if (growth >= maxParseGrowth)
    throw new Error(
      `parsing ${JSON.stringify(value.slice(0, 40))}… (${value.length} characters) took ${growth.toFixed(0)} times as long as parsing its ${pieceLength}-character pieces`,
    );
}

/**
 * Asserts that `parse` reads each value in time linear in its length and never throws, for the adversarial values
 * and `headerRuns` random ones, and that `check` holds of each value and what it parsed to (the parser's own
 * invariants).
 */
export function expectFastTotalParser<T>(
  parse: (value: string) => T,
  words: readonly string[],
  check: (value: string, parsed: T) => void = () => {},
): void {
  for (const value of adversarialValues(words)) {
    expectLinearParse(parse, value);
    check(value, parse(value));
  }
  fc.assert(
    fc.property(headerValue(words), (value) => {
      expectLinearParse(parse, value);
      check(value, parse(value));
    }),
    { numRuns: headerRuns, seed },
  );
}
