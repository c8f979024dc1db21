// A real Prometheus (Debian's `prometheus` package) for the metrics specs: started from a
// temporary config that scrapes one target every 250 ms, on a free loopback port, with its
// storage in a temporary folder; queried through its HTTP API. Skipped with the reason where
// the binary is missing, except in CI.
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./launcher-fixtures.ts";

const BIN = ["/usr/bin/prometheus", "/usr/local/bin/prometheus"].find((p) => existsSync(p));

export const PROMETHEUS_SKIP: string | false = process.env.CI || BIN ? false : "prometheus not found (apt-get install prometheus)";

interface After {
  after(fn: () => unknown): void;
}

export interface Sample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  /** An instant query's vector (`/api/v1/query`). */
  query(expr: string): Promise<Sample[]>;
  /** Polls `expr` until `ok` holds for its answer (each scrape is 250 ms apart); rejects after `ms`. */
  until(expr: string, ok: (samples: Sample[]) => boolean, ms?: number): Promise<Sample[]>;
}

export async function startPrometheus(t: After, target: string, path = "/metrics"): Promise<Prometheus> {
  const dir = mkdtempSync(join(tmpdir(), "prometheus-"));
  const config = join(dir, "prometheus.yml");
  writeFileSync(
    config,
    `global:\n  scrape_interval: 250ms\n  scrape_timeout: 200ms\nscrape_configs:\n  - job_name: gateway\n    metrics_path: ${path}\n    static_configs:\n      - targets: ["${target}"]\n`,
  );
  const port = await freePort();
  const child = spawn(
    BIN ?? "prometheus",
    [`--config.file=${config}`, `--storage.tsdb.path=${join(dir, "data")}`, `--web.listen-address=127.0.0.1:${port}`, "--log.level=warn"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const exited = new Promise<void>((done) => child.once("exit", () => done()));
  t.after(async () => {
    child.kill("SIGTERM");
    await exited;
    rmSync(dir, { recursive: true, force: true });
  });
  const base = `http://127.0.0.1:${port}`;
  const ready = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr}`);
    const ok = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    if (Date.now() > ready) throw new Error(`prometheus not ready in 30 s: ${stderr}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  const query = async (expr: string): Promise<Sample[]> => {
    const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`);
    const body = (await res.json()) as { status: string; data?: { result: Sample[] }; error?: string };
    if (body.status !== "success") throw new Error(`query ${expr}: ${body.error}`);
    return body.data!.result;
  };
  return {
    query,
    async until(expr, ok, ms = 20_000) {
      const end = Date.now() + ms;
      for (;;) {
        const got = await query(expr);
        if (ok(got)) return got;
        if (Date.now() > end) throw new Error(`${expr}: never as expected; last answer ${JSON.stringify(got)}`);
        // Polling an outside server's API: its scrapes are what we wait for.
        await new Promise((done) => setTimeout(done, 100));
      }
    },
  };
}
