// One line of the bench table. Throughput rows fill the request columns; the others put
// their own figure in `result`. `checks` are the targets, judged in ./targets.ts.
export interface Check {
  /** e.g. "req/s ≥ 0.5× baseline" */
  target: string;
  /** e.g. "0.62×" */
  measured: string;
  pass: boolean;
}

export interface Row {
  name: string;
  /** Requests (or operations) per second. */
  rps?: number;
  p50Ms?: number;
  p99Ms?: number;
  /** Server CPU time per request: efficiency even when the load generator is the bottleneck. */
  cpuUsPerReq?: number;
  /** The load generator's CPU time per request: below the bare server's, it outpaces that server. */
  generatorCpuUsPerReq?: number;
  /** KB the server allocates per request (see rows/allocation.ts). */
  allocKbPerReq?: number;
  /** The server's RSS after the row. */
  rssMb?: number;
  /** Versus the same-run baseline: req/s ratio, or baseline time over this time. */
  ratio?: number;
  /** The row's own figure when it is not a throughput row, e.g. "12.3 ms". */
  result?: string;
  checks: Check[];
  note?: string;
}
