// /metrics as an operator alerts on it, scraped by a real Prometheus and read back with PromQL:
// tool-session starts, failures and start latency by backend, live sessions per tool, call
// duration per tool, store latency, rate-limit refusals, dropped spans and audit lines. And
// /readyz: 503 while the store does not answer or no tool session could start; /healthz stays 200.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseGatewayConfig } from "../../../lib/gateway/config/gateway-config.ts";
import { GatewayMetrics } from "../../../lib/gateway/operations/metrics.ts";
import { startGateway } from "../../../lib/gateway/server.ts";
import { MemoryRecordStore } from "../../../lib/gateway/store/memory-record-store.ts";
import { TimedRecordStore } from "../../../lib/gateway/store/timed-record-store.ts";
import { PROMETHEUS_SKIP, startPrometheus, type Sample } from "../../helpers/prometheus.ts";
import { fake, json, post, ROOT, rpc, startHarness } from "../helpers.ts";

const BROKEN = { command: [process.execPath, "-e", "process.exit(1)"] };

function value(samples: Sample[]): number | undefined {
  return samples.length === 1 ? Number(samples[0]!.value[1]) : undefined;
}

test("a real Prometheus scrapes the new series and answers PromQL for them", { skip: PROMETHEUS_SKIP, timeout: 120_000 }, async (t) => {
  const h = await startHarness(t, {
    tools: { fake: { revisions: { default: fake() } }, broken: { revisions: { default: BROKEN } } },
    limits: { rateBurst: 6, ratePerSecond: 0.001 },
  });
  const init = await post(
    `${h.base}/api/mcp/fake/mcp`,
    h.tokens.alice,
    rpc("initialize", { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "s", version: "1" } }),
  );
  const session = { "mcp-session-id": init.headers.get("mcp-session-id")! };
  await init.text();
  await (await post(`${h.base}/api/mcp/fake/mcp`, h.tokens.alice, rpc("tools/call", { name: "x", arguments: {} }, 2), session)).text();
  // Seven tries at a tool that cannot start: six failures, then the rate limit.
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) {
    const res = await post(`${h.base}/api/mcp/broken/mcp`, h.tokens.carol, rpc("ping"));
    statuses.push(res.status);
    await res.text();
  }
  assert.deepEqual(statuses, [502, 502, 502, 502, 502, 502, 429]);

  const prom = await startPrometheus(t, new URL(h.base).host);
  const expect = async (expr: string, want: number): Promise<void> => {
    await prom.until(expr, (s) => value(s) === want);
  };
  await expect('hubmcp_gateway_tool_session_starts_total{backend="command"}', 1);
  await expect('hubmcp_gateway_tool_session_start_failures_total{backend="command"}', 6);
  await expect('hubmcp_gateway_tool_session_start_seconds_count{backend="command"}', 1);
  await expect('hubmcp_gateway_tool_sessions_live{tool="fake"}', 1);
  await expect('hubmcp_gateway_call_seconds_count{tool="fake"}', 1);
  await expect("hubmcp_gateway_rate_limited_total", 1);
  await expect("hubmcp_spans_dropped_total", 0);
  await expect("hubmcp_gateway_audit_lines_dropped_total", 0);
  await prom.until('hubmcp_gateway_store_seconds_count{op="get"}', (s) => (value(s) ?? 0) > 0);
  // A histogram Prometheus can compute with: the start latency's median is a number of seconds.
  const p50 = await prom.until(
    'histogram_quantile(0.5, sum by (le) (hubmcp_gateway_tool_session_start_seconds_bucket{backend="command"}))',
    (s) => s.length === 1,
  );
  assert.ok(Number(p50[0]!.value[1]) > 0);
});

test("store latency and errors by operation", async () => {
  const metrics = new GatewayMetrics();
  const failing = new (class extends MemoryRecordStore {
    override async put(): Promise<void> {
      throw Object.assign(new Error("down"), { code: "ECONNREFUSED" });
    }
  })();
  const store = new TimedRecordStore(failing, (op, ms, failed) => metrics.store(op, ms, failed));
  await store.create("c", "1", {});
  await store.get("c", "1");
  await store.update("c", "1", () => ({ a: 1 }));
  await store.list("c");
  await store.delete("c", "1");
  await store.secret("k");
  await assert.rejects(store.put("c", "2", {}), /down/);
  const text = metrics.render(0);
  for (const op of ["get", "put", "create", "update", "list", "delete", "secret"])
    assert.match(text, new RegExp(`hubmcp_gateway_store_seconds_count\\{op="${op}"\\} 1\\n`));
  assert.match(text, /hubmcp_gateway_store_errors_total\{op="put"\} 1\n/);
  assert.doesNotMatch(text, /hubmcp_gateway_store_errors_total\{op="get"\}/);
  // Unlabelled and unused, a histogram still shows its zero series.
  assert.match(text, /hubmcp_gateway_upstream_seconds_count 0\n/);
});

test("/readyz: the store must answer and sessions must be able to start; /healthz stays liveness", { timeout: 30_000 }, async (t) => {
  let mode: "ok" | "failing" | "hung" = "ok";
  const store = new (class extends MemoryRecordStore {
    override get<T>(collection: string, id: string): Promise<T | undefined> {
      if (collection === "readiness" && mode === "failing") return Promise.reject(Object.assign(new Error("down"), { code: "ECONNREFUSED" }));
      if (collection === "readiness" && mode === "hung") return new Promise(() => {});
      return super.get<T>(collection, id);
    }
  })();
  const config = parseGatewayConfig({ tools: { fake: { revisions: { default: fake() } } }, limits: { sessionsTotal: 1 } }, ROOT);
  const gw = await startGateway({ config, store });
  t.after(() => gw.close());
  const ready = async (): Promise<[number, unknown]> => {
    const res = await fetch(`${gw.url}readyz`);
    return [res.status, await json(res)];
  };
  assert.deepEqual(await ready(), [200, { status: "ready", store: "ok", toolSessions: "ok" }]);
  mode = "failing";
  assert.deepEqual(await ready(), [503, { status: "unready", store: "failing", toolSessions: "ok" }]);
  mode = "hung";
  assert.deepEqual(await ready(), [503, { status: "unready", store: "failing", toolSessions: "ok" }]);
  assert.equal((await fetch(`${gw.url}healthz`)).status, 200);
  mode = "ok";
  await gw.close();
  // Closing: no new tool session can start here (the listener is gone too, so ask the module).
  const { readiness } = await import("../../../lib/gateway/operations/readiness.ts");
  assert.deepEqual(await readiness(store, { canStart: false }), { ready: false, store: "ok", sessions: "unavailable" });
});
