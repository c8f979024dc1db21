// One load-generator thread: per job, keeps its share of keep-alive connections busy with the same
// request and records each latency. Started by ./load.ts; knows nothing of the rows.
import { Agent, request } from "node:http";
import { performance } from "node:perf_hooks";
import { parentPort } from "node:worker_threads";

export interface WorkerJob {
  host: string;
  port: number;
  path: string;
  headers: Record<string, string>;
  body: string;
  connections: number;
  /** Wall-clock (performance.timeOrigin-based) ms before which latencies are not kept. */
  warmupUntil: number;
  /** Stop starting requests at this epoch ms; absent in count mode. */
  deadline: number | null;
  /** Requests to complete in count mode; absent in duration mode. */
  requests: number | null;
}

export interface WorkerReport {
  /** Latencies in ms of requests started after the warm-up. */
  latencies: Float64Array;
  count: number;
  /** Completed requests including the warm-up, to share out server CPU time. */
  total: number;
  errors: number;
  /** Epoch ms of the first measured start and of the last measured completion. */
  firstStart: number;
  lastEnd: number;
}

const now = (): number => performance.timeOrigin + performance.now();

function run(job: WorkerJob): Promise<WorkerReport> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.connections });
  const body = Buffer.from(job.body);
  const headers = { ...job.headers, "content-type": "application/json", "content-length": String(body.length) };
  const options = { agent, host: job.host, port: job.port, path: job.path, method: "POST", headers };
  let latencies = new Float64Array(1 << 16);
  let count = 0;
  let total = 0;
  let errors = 0;
  let started = 0;
  let firstStart = Infinity;
  let lastEnd = 0;
  let active = 0;

  const keep = (t0: number, ok: boolean): void => {
    const t1 = now();
    total++;
    if (t0 < job.warmupUntil) return;
    if (!ok) errors++;
    if (count === latencies.length) {
      const grown = new Float64Array(latencies.length * 2);
      grown.set(latencies);
      latencies = grown;
    }
    latencies[count++] = t1 - t0;
    if (t0 < firstStart) firstStart = t0;
    lastEnd = t1;
  };
  const more = (): boolean => (job.requests === null ? now() < job.deadline! : started < job.requests);

  return new Promise((resolve) => {
    const finish = (): void => {
      if (--active > 0) return;
      agent.destroy();
      resolve({ latencies: latencies.slice(0, count), count, total, errors, firstStart, lastEnd });
    };
    const fire = (): void => {
      if (!more()) return finish();
      started++;
      const t0 = now();
      const req = request(options, (res) => {
        const ok = res.statusCode === 200;
        res.on("data", () => {});
        res.once("end", () => {
          keep(t0, ok);
          fire();
        });
      });
      req.once("error", () => {
        keep(t0, false);
        // A refused or reset connection: back off briefly rather than spin.
        setTimeout(fire, 10);
      });
      req.end(body);
    };
    active = job.connections;
    for (let i = 0; i < job.connections; i++) fire();
  });
}

// A thread serves job after job, so its boot cost is paid once per run, never in a measurement.
if (parentPort) {
  const port = parentPort;
  port.on("message", (job: WorkerJob) => {
    void run(job).then((report) => port.postMessage(report, [report.latencies.buffer as ArrayBuffer]));
  });
  port.postMessage("ready");
}
