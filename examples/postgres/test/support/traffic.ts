/**
 * Steady traffic against a running server, for the suites that take its database away: loops of searches and of
 * PATCHes, each loop one request after another, every answer recorded until stop().
 */
import { setTimeout as sleep } from "node:timers/promises";

/** One answer. */
export interface Answer {
  kind: "search" | "patch";
  status: number;
  retryAfter: string | null;
  body: string;
  /** When it came, in ms since the traffic started. */
  at: number;
  /** The PATCH's machine and the price it set. */
  machine?: string;
  price?: string;
}

/** Running traffic. */
export interface Traffic {
  readonly answers: Answer[];
  /** Resolves once an answer of `status` comes after `since` (ms of the traffic), or rejects after `bound` ms. */
  until(status: number, since: number, bound: number): Promise<number>;
  /** Ms since the traffic started. */
  now(): number;
  /** Stops the loops; resolves when their last requests are answered. */
  stop(): Promise<Answer[]>;
}

/**
 * Starts `searches` loops of searches and one loop of PATCHes per machine of `machines` (proj-alpha), each PATCH
 * setting the machine's price to the next whole number; a failed request (refused connection) is recorded as 0.
 */
export function startTraffic(url: string, key: string, searches: number, machines: string[]): Traffic {
  const answers: Answer[] = [];
  const started = performance.now();
  const now = () => performance.now() - started;
  let running = true;
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const record = async (
    kind: Answer["kind"],
    send: () => Promise<Response>,
    patch?: Pick<Answer, "machine" | "price">,
  ) => {
    try {
      const response = await send();
      const body = await response.text();
      answers.push({
        kind,
        status: response.status,
        retryAfter: response.headers.get("retry-after"),
        body,
        at: now(),
        ...patch,
      });
    } catch {
      answers.push({ kind, status: 0, retryAfter: null, body: "", at: now(), ...patch });
      await sleep(20);
    }
  };
  const searchLoop = async (n: number) => {
    const queries = ["train", "type:cluster gpu", "alpha", "type:volume"];
    for (let i = 0; running; i++)
      await record("search", () =>
        fetch(`${url}/v1/resources/search?query=${encodeURIComponent(queries[(i + n) % queries.length] as string)}`, {
          headers,
        }),
      );
  };
  const patchLoop = async (machine: string) => {
    for (let i = 1; running; i++) {
      const price = String(i);
      await record(
        "patch",
        () =>
          fetch(`${url}/v1/projects/proj-alpha/cluster-machines/${machine}`, {
            method: "PATCH",
            headers,
            body: JSON.stringify({ priceHr: { value: price } }),
          }),
        { machine, price },
      );
    }
  };
  const loops = [
    ...Array.from({ length: searches }, (_, n) => searchLoop(n)),
    ...machines.map((machine) => patchLoop(machine)),
  ];
  return {
    answers,
    now,
    until: async (status, since, bound) => {
      for (const deadline = now() + bound; now() < deadline; await sleep(20)) {
        const found = answers.find((a) => a.status === status && a.at > since);
        if (found) return found.at;
      }
      throw new Error(`no ${status} within ${bound} ms after ${Math.round(since)} ms`);
    },
    stop: async () => {
      running = false;
      await Promise.all(loops);
      return answers;
    },
  };
}
