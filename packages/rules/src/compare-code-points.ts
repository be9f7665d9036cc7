/** Compares strings by Unicode code point (not UTF-16 code unit, which orders U+E000–U+FFFF after astral characters). */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    const surrogate = (x >= 0xd800 && x <= 0xdfff) || (y >= 0xd800 && y <= 0xdfff);
    return surrogate ? (a.codePointAt(i) ?? 0) - (b.codePointAt(i) ?? 0) : x - y;
  }
  return a.length - b.length;
}
