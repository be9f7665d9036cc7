/** Holding a database's connection (a pg.Pool's) or turn (PGlite's) for as long as a test needs it. */
import type { Database } from "../../src/database/database.js";

/**
 * Starts a transaction that waits on JavaScript, holding its connection or turn until release() is called;
 * resolves once it holds it, so that what the test sends next has to wait.
 */
export async function hold(db: Database): Promise<{ held: Promise<void>; release: () => void }> {
  let release = () => {};
  let entered = () => {};
  const inside = new Promise<void>((resolve) => (entered = resolve));
  const held = db.transaction(
    () =>
      new Promise<void>((resolve) => {
        release = resolve;
        entered();
      }),
  );
  await inside;
  return { held, release: () => release() };
}
