/**
 * The values of the fault settings in the flags' syntax (`503=1%`, `20-200`, `1%`, `20/s`), read alike by
 * compute-stub's flags (cli-flags.ts), the admin API's `PATCH /__stub/faults` and the MSW handlers' `setFaults`
 * (admin-faults.ts): each parser throws an Error saying what it expects. Nothing here loads a Node built-in.
 */

import { type FaultOptions, maxPreferLatencyMs } from "./fault-rules.js";
import { anyOperation } from "./fault-scenarios.js";

/** A share of requests, with its percent sign: `0.5%` → 0.005 (a bare `2` could mean 2 % or 200 %). */
export const sharePercent = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)%$/.exec(value.trim());
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share >= 0 && share <= 1))
    throw new Error(`'${value}' is not a percentage from 0% to 100% with its % sign, such as 0.5%.`);
  return share;
};

/**
 * `429=2%,500=0.5%,503=1%`: failure statuses every operation documents (`statuses`: documentedStatuses' map), each
 * once with its share, 100 % at most in all. (200 is not a fault: `Prefer: code=200` is the operation's own answer.)
 */
export const statusShares = (
  value: string,
  statuses: ReadonlyMap<string, readonly string[]>,
): NonNullable<FaultOptions["faults"]> => {
  const allowed = (statuses.get(anyOperation) ?? []).filter((status) => status !== "200");
  const seen = new Set<string>();
  const faults = value.split(",").map((entry) => {
    const [status = "", share, ...rest] = entry.trim().split("=");
    if (!allowed.includes(status))
      throw new Error(`'${status}' is not a status every operation documents as a failure (${allowed.join(", ")}).`);
    if (share === undefined || rest.length > 0)
      throw new Error(`'${entry.trim()}' needs a share of requests: ${status}=1%.`);
    if (seen.has(status)) throw new Error(`${status} is given twice; give each status once, with its whole share.`);
    seen.add(status);
    return { status: Number(status), share: sharePercent(share) };
  });
  if (faults.reduce((sum, f) => sum + f.share, 0) > 1) throw new Error("the shares add up to more than 100%.");
  return faults;
};

/** `20-200` (uniform) or `50` milliseconds, at most a minute. */
export const milliseconds = (value: string): { min: number; max: number } => {
  const parts = value.split("-").map((n) => (/^\d+$/.test(n.trim()) ? Number(n) : NaN));
  const min = parts[0] ?? NaN;
  const max = parts[1] ?? min;
  if (parts.length > 2 || !(min <= max) || max > maxPreferLatencyMs)
    throw new Error(`'${value}' is not a range of milliseconds such as 20-200 (at most ${maxPreferLatencyMs}).`);
  return { min, max };
};

/** `20/s` or `600/min` → requests a second. */
export const perSecond = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)\/(s|min)$/.exec(value.trim());
  const rate = match ? Number(match[1]) / (match[2] === "min" ? 60 : 1) : NaN;
  if (!(rate > 0)) throw new Error(`'${value}' is not a rate such as 20/s or 600/min.`);
  return rate;
};
