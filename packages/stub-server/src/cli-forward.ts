/** compute-stub's flags of forwarding (forward.ts): --forward, and --record and --record-keys of what it forwards. */
import { serviceUrlOption } from "@compute-api/runtime/cli";
import { Option } from "commander";

/** The values of the forwarding flags. */
export interface ForwardFlags {
  forward?: string;
  record?: string;
  recordKeys?: boolean;
}

/** --forward and the recording of what it forwards (forward.ts). */
export function forwardOptions(): Option[] {
  return [
    serviceUrlOption(
      "--forward <url>",
      "forward what the data does not hold (a key it does not know, a machine it does not have, a path outside the spec) to this backend, through the gateway's checks",
    ),
    new Option(
      "--record <file>",
      "with --forward: record the forwarded answers into this .yaml fixture file, as compute-gateway --record does",
    ),
    new Option(
      "--record-keys",
      "with --record: record each caller's API key as a user who sees what its answers showed (SHA-256 only)",
    ),
  ];
}

/** What is wrong with the forwarding flags together, if anything. */
export function forwardFlagsProblem(flags: ForwardFlags): string | undefined {
  if (flags.record !== undefined && flags.forward === undefined)
    return "--record records what --forward forwards: give --forward <url> too";
  if (flags.recordKeys && flags.record === undefined) return "--record-keys: give --record <file> too";
  return undefined;
}
