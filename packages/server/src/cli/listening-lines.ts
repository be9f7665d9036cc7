/**
 * What a server's command prints once it listens: where, the first user's key, a curl line that works, and how to
 * stop it.
 */
import { envSourceOf, sharedVariables } from "@compute-api/runtime/cli";
import type { Command } from "commander";

/**
 * The first user's key at this start: `given` by --api-key or a variable; `new`, made now and printed (`lasts`
 * says for how long: "new at each start"); or `kept`, one registered before that stays (`stays` says so).
 */
export type StartKey =
  | { outcome: "given" }
  | { outcome: "new"; key: string; lasts: string }
  | { outcome: "kept"; stays: string; keyId: string };

/** What the listening lines say. */
export interface ListeningOptions {
  /** The command's name. */
  name: string;
  url: string;
  /** What follows the URL in parentheses: `docs: …/docs`, `data: PGlite in memory`. */
  about: string;
  /** The user the key acts for; undefined when the data has none. */
  user: string | undefined;
  key: StartKey;
}

/**
 * The lines, each ending in a newline. The key itself is printed only when the command made it. The last says how
 * to stop the server, with its process id: whatever started it (`npm start`, a script) is not what to stop.
 */
export function listeningLines(command: Command, { name, url, about, user, key }: ListeningOptions): string {
  const setOne = `set one with --api-key or ${sharedVariables["--api-key"]}`;
  const env = envSourceOf(command, "apiKey");
  const keyLine =
    user === undefined
      ? "No user in the data, so no API key"
      : key.outcome === "given"
        ? `API key of user '${user}': the one given by ${env ?? "--api-key"}`
        : key.outcome === "new"
          ? `API key of user '${user}' (${key.lasts}; ${setOne}):\n  ${key.key}`
          : `API key of user '${user}': ${key.stays} (key '${key.keyId}'; ${setOne})`;
  const shown =
    key.outcome === "new" ? key.key : key.outcome === "kept" ? "<your API key>" : env ? `$${env}` : "<your --api-key>";
  return [
    `${name} listening on ${url} (${about})`,
    keyLine,
    "Try it:",
    `  curl -H "Authorization: Bearer ${shown}" "${url}/v1/resources/search?query=train"`,
    `Stop it with Ctrl-C, or: kill ${process.pid} (it drains first)`,
    "",
  ].join("\n");
}
