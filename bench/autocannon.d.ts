/** The part of autocannon 8's API the benchmarks use (the package ships no types). */
declare module "autocannon" {
  export interface Request {
    method?: string;
    path?: string;
    headers?: Record<string, string>;
    body?: string;
    /** Changes each request before it is sent, such as a unique body. */
    setupRequest?: (request: Request) => Request;
  }
  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    requests?: Request[];
    connections?: number;
    duration?: number;
    /** Stops after this many requests instead of after `duration`. */
    amount?: number;
    /** Seconds without an answer before a request counts as a timeout; default 10. */
    timeout?: number;
    pipelining?: number;
  }
  export interface Result {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number };
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
