/**
 * A headless Chromium for the tests that need a real browser (playwright-core downloads none): the one named by
 * CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH. None found fails with a one-line way to get one.
 */
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";
import { chromium, type Browser } from "playwright-core";

/** Where Chromium is: CHROMIUM_PATH, else the first `chromium` or `chromium-browser` on PATH. */
export function findChromium(): string {
  const given = process.env["CHROMIUM_PATH"];
  if (given) return given;
  for (const dir of (process.env["PATH"] ?? "").split(delimiter).filter(Boolean)) {
    for (const name of ["chromium", "chromium-browser"]) {
      try {
        accessSync(join(dir, name), constants.X_OK);
        return join(dir, name);
      } catch {
        // not here
      }
    }
  }
  throw new Error("Chromium not found: install it (Debian: apt-get install chromium, as .ci/run does) or set CHROMIUM_PATH to its executable");
}

/** Launches headless Chromium with the flags this machine needs (no sandbox as root, no background networking). */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: findChromium(),
    args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking", "--disable-component-update", "--disable-sync"],
  });
}
