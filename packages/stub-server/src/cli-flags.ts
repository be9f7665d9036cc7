/**
 * The values of compute-stub's flags, each a commander argument parser that refuses a bad value with a message
 * saying what it expects: origins, the run's faults (`--faults`, `--latency`, `--drop`, `--rate-limit`) and the key.
 */
import { loadSpec } from "@compute-api/contract";
import { parseOrigins } from "@compute-api/contract/http";
import { InvalidArgumentError } from "commander";
import { type FaultOptions, maxPreferLatencyMs, statusesOfEveryOperation } from "./faults.js";

/** Origins of --cors-origin, comma-separated or repeated. */
export const origins = (value: string, previous: string[] | undefined): string[] => {
  try {
    return parseOrigins(value, previous);
  } catch (error) {
    throw new InvalidArgumentError((error as Error).message);
  }
};

/** A share of requests: `0.5%` (or `0.5`, also percent) → 0.005. */
export const percent = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)%?$/.exec(value.trim());
  const share = match ? Number(match[1]) / 100 : NaN;
  if (!(share >= 0 && share <= 1))
    throw new InvalidArgumentError(`'${value}' is not a percentage from 0% to 100%, such as 0.5%.`);
  return share;
};

/** `429=2%,500=0.5%,503=1%`: statuses every operation documents, with their shares, 100 % at most in all. */
export const faultList = (value: string): NonNullable<FaultOptions["faults"]> => {
  const allowed = statusesOfEveryOperation(loadSpec());
  const faults = value.split(",").map((entry) => {
    const [status = "", share = ""] = entry.trim().split("=");
    if (!allowed.has(status))
      throw new InvalidArgumentError(
        `'${status}' is not a status every operation documents (${[...allowed].join(", ")}).`,
      );
    return { status: Number(status), share: percent(share) };
  });
  if (faults.reduce((sum, f) => sum + f.share, 0) > 1)
    throw new InvalidArgumentError("the shares add up to more than 100%.");
  return faults;
};

/** `20-200` (uniform) or `50` milliseconds, at most a minute. */
export const latencyRange = (value: string): { min: number; max: number } => {
  const parts = value.split("-").map((n) => (/^\d+$/.test(n.trim()) ? Number(n) : NaN));
  const min = parts[0] ?? NaN;
  const max = parts[1] ?? min;
  if (parts.length > 2 || !(min <= max) || max > maxPreferLatencyMs)
    throw new InvalidArgumentError(
      `'${value}' is not a range of milliseconds such as 20-200 (at most ${maxPreferLatencyMs}).`,
    );
  return { min, max };
};

/** `20/s` or `600/min` → requests a second. */
export const requestRate = (value: string): number => {
  const match = /^(\d+(?:\.\d+)?)\/(s|min)$/.exec(value.trim());
  const rate = match ? Number(match[1]) / (match[2] === "min" ? 60 : 1) : NaN;
  if (!(rate > 0)) throw new InvalidArgumentError(`'${value}' is not a rate such as 20/s or 600/min.`);
  return rate;
};

/** An API key that can be sent as `Authorization: Bearer <key>`. */
export const apiKey = (value: string): string => {
  // The form the contract accepts in `Authorization: Bearer <key>`; any other key could never be sent.
  if (!/^[A-Za-z0-9._~+/=-]+$/.test(value))
    throw new InvalidArgumentError("may hold only letters, digits and . _ ~ + / = -.");
  return value;
};
