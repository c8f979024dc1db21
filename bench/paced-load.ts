// A paced load: requests sent at evenly spaced times (one tick a millisecond), each on a
// keep-alive connection that has none in flight. autocannon's `overallRate` spends each
// connection's share of a second at the start of that second, as fast as answers come, so a
// "steady" rate through it is a burst and a pause; how much a server batches per event-loop
// turn then changes from one second to the next, and its CPU per call with it (by more than a
// tenth between slices). Here a server sees calls arrive as a steady stream.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import type { Target } from "./load.ts";

export interface PacedResult {
  /** Answers with status 200. */
  ok: number;
  /** Other statuses and failed requests. */
  errors: number;
  /** Calls due that found every connection busy, and were not sent. */
  skipped: number;
  /** The first failure's status or error code. */
  firstFailure?: string;
  elapsedMs: number;
}

export interface PacedPlan {
  /** Calls a second. */
  rate: number;
  durationMs: number;
  /** At most this many in flight. */
  connections: number;
}

const CALL_TIMEOUT_MS = 10_000;

export function pacedRun(target: Target, plan: PacedPlan): Promise<PacedResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: plan.connections });
  const body = Buffer.from(target.body);
  const headers = { ...target.headers, "content-type": "application/json", "content-length": String(body.length) };
  const result: PacedResult = { ok: 0, errors: 0, skipped: 0, elapsedMs: 0 };
  let inFlight = 0;
  let sent = 0;
  const send = (done: () => void): void => {
    inFlight++;
    const req = request({ agent, host: "127.0.0.1", port: target.port, path: target.path, method: "POST", headers }, (res) => {
      res.resume();
      res.on("end", () => {
        if (res.statusCode === 200) result.ok++;
        else {
          result.errors++;
          result.firstFailure ??= `HTTP ${res.statusCode}`;
        }
        inFlight--;
        done();
      });
    });
    req.on("error", (e: NodeJS.ErrnoException) => {
      result.firstFailure ??= e.code ?? "error";
      result.errors++;
      inFlight--;
      done();
    });
    // A call that never answers fails the slice rather than holding the run (as autocannon's timeout).
    req.setTimeout(CALL_TIMEOUT_MS, () => req.destroy(Object.assign(new Error("timed out"), { code: "ETIMEDOUT" })));
    req.end(body);
  };
  return new Promise((resolve) => {
    const t0 = performance.now();
    let ticking = true;
    const finish = (): void => {
      if (ticking || inFlight > 0) return;
      result.elapsedMs = performance.now() - t0;
      agent.destroy();
      resolve(result);
    };
    const tick = setInterval(() => {
      const elapsed = performance.now() - t0;
      const due = Math.min(Math.floor((Math.min(elapsed, plan.durationMs) * plan.rate) / 1000), Math.ceil((plan.durationMs * plan.rate) / 1000));
      for (; sent < due; sent++) {
        if (inFlight >= plan.connections) result.skipped++;
        else send(finish);
      }
      if (elapsed >= plan.durationMs) {
        ticking = false;
        clearInterval(tick);
        finish();
      }
    }, 1);
  });
}
