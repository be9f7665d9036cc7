/**
 * A headless Chromium for the tests that need a real browser (playwright-core downloads none), found by
 * system.ts: CHROMIUM_PATH, else `chromium` or `chromium-browser` on PATH or in /usr/bin.
 * Suites that use it skip without it (`describe.skipIf(skipWithoutChromium())`), except under CI, where they fail.
 */
import { type Browser, chromium } from "playwright-core";
import { chromiumProgram, requireProgram, skipWithout } from "./system.js";

/** Whether the browser suites must skip (Chromium absent, not CI), printing once per run how to get it. */
export function skipWithoutChromium(): boolean {
  return skipWithout(chromiumProgram);
}

/**
 * Launches headless Chromium with the flags this machine needs (no sandbox as root, no background networking) and
 * `args` besides (such as `--host-resolver-rules`); fails with how to get it when absent.
 */
export function launchChromium(args: readonly string[] = []): Promise<Browser> {
  return chromium.launch({
    executablePath: requireProgram(chromiumProgram),
    args: [
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      ...args,
    ],
  });
}
