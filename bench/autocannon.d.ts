// The part of autocannon's API the bench uses (the package ships no types).
declare module "autocannon" {
  import type { EventEmitter } from "node:events";

  interface Options {
    url: string;
    method?: string;
    headers?: Record<string, string>;
    body?: string;
    connections?: number;
    pipelining?: number;
    /** Seconds; ignored when `amount` is set. */
    duration?: number;
    amount?: number;
    /** Requests per second over all connections (an open loop), instead of as fast as answers come. */
    overallRate?: number;
    /** ms between the samples that also decide when a stopped run ends. */
    sampleInt?: number;
    timeout?: number;
  }

  interface Result {
    errors: number;
    timeouts: number;
    non2xx: number;
    mismatches: number;
  }

  /** Emits "response" (client, statusCode, bytes, responseTimeMs) and "reqError". */
  interface Instance extends EventEmitter {
    stop(): void;
  }

  function autocannon(options: Options, done: (err: Error | null, result: Result) => void): Instance;
  export default autocannon;
}
