// A hand-written stand-in for the service: nothing is mocked, the client gets this function as its `fetch`.

/** One request the client sent, as the service would see it. */
export interface SentRequest {
  request: Request;
  method: string;
  url: string;
  headers: Headers;
  body: string;
  /** `Date.now()` when it was sent (fake timers move it exactly). */
  at: number;
}

/** Produces the answer to one request; a fresh Response each time, since a body can be read only once. */
export type Answer = (request: Request) => Response | Promise<Response>;

/** A JSON answer with the given status, body and extra headers. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return () =>
    new Response(JSON.stringify(body), { status, headers: { "Content-Type": "application/json", ...headers } });
}

/** An ErrorBody answer, as every failure of the service looks. */
export function failure(status: number, details: unknown[] = [], headers: Record<string, string> = {}): Answer {
  return json(status, { code: status, message: `failed with ${status}`, details }, headers);
}

// Requests waiting on `never`, held as a real fetch holds a request in flight. Without that nothing but the
// waiting promise chain refers to them, and a Request whose signal link is collected never hears of its abort.
const waiting = new Set<Request>();

/** An answer that never comes: it waits until the request is aborted and rejects as fetch does. */
export const never: Answer = (request) =>
  new Promise((_, reject) => {
    const { signal } = request;
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    waiting.add(request);
    signal.addEventListener(
      "abort",
      () => {
        waiting.delete(request);
        reject(signal.reason);
      },
      { once: true },
    );
  });

/** A fetch answering the n-th request with the n-th answer (the last one repeats), recording every request. */
export function fakeFetch(...answers: Answer[]): {
  fetch: (request: Request) => Promise<Response>;
  sent: SentRequest[];
} {
  const sent: SentRequest[] = [];
  const fetch = async (request: Request): Promise<Response> => {
    const answer = answers[Math.min(sent.length, answers.length - 1)];
    if (!answer) throw new Error("fakeFetch needs at least one answer");
    sent.push({
      request,
      method: request.method,
      url: request.url,
      headers: new Headers(request.headers),
      body: await request.clone().text(),
      at: Date.now(),
    });
    return answer(request);
  };
  return { fetch, sent };
}

/** All the text a thrown value exposes (name, message, stack, own fields, cause), to look for a secret in. */
export function exposedText(thrown: unknown): string {
  if (!(thrown instanceof Error)) return JSON.stringify(thrown) ?? String(thrown);
  const fields = Object.fromEntries(Object.entries(thrown));
  return [
    thrown.name,
    thrown.message,
    thrown.stack ?? "",
    JSON.stringify(fields),
    exposedText(thrown.cause ?? ""),
  ].join("\n");
}

/** What `run` throws, or undefined when it returns. */
export function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return undefined;
}
