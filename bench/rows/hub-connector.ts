// The hub connector's listing row: `tools/list` at `{publicUrl}/mcp` in a session, for a
// gateway of 301 tools (`url` revisions of one hubmcp child), all on one page. The first
// listing fills the 301 catalogs and is timed apart; the load then measures listing from
// the catalog, which is what every person after the first gets.
import { performance } from "node:perf_hooks";
import type { Servers } from "../child.ts";
import type { LoadGenerator } from "../load.ts";
import { INITIALIZE, PROTOCOL_VERSION } from "../requests.ts";
import type { Row } from "../row.ts";
import { HUB_TOOLS } from "../servers/gateway.ts";
import { atMost, TARGETS } from "../targets.ts";
import { startStack } from "./gateway.ts";
import type { Slicing } from "./throughput.ts";

const LIST = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list", params: {} });

export async function hubConnectorListRow(servers: Servers, gen: LoadGenerator, slicing: Slicing): Promise<Row> {
  const stack = await startStack(servers, false, "hub300");
  try {
    const url = `http://127.0.0.1:${stack.gateway.port}/mcp`;
    const base = { "content-type": "application/json", accept: "application/json, text/event-stream", ...stack.bearer };
    const init = await fetch(url, { method: "POST", body: INITIALIZE, headers: base });
    const session = init.headers.get("mcp-session-id");
    await init.arrayBuffer();
    if (!session) throw new Error(`initialize at /mcp failed: HTTP ${init.status}`);
    const headers = { ...base, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
    const t0 = performance.now();
    const first = (await (await fetch(url, { method: "POST", body: LIST, headers })).json()) as { result?: { tools?: unknown[] } };
    const fillMs = performance.now() - t0;
    const listed = first.result?.tools?.length ?? 0;
    const cpu0 = (await stack.gateway.stats()).cpuMs;
    const load = await gen.run({ port: stack.gateway.port, path: "/mcp", body: LIST, headers }, { durationMs: slicing.durationMs, warmupMs: 0 });
    const cpuMs = (await stack.gateway.stats()).cpuMs - cpu0;
    const perListMs = load.total > 0 ? cpuMs / load.total : Infinity;
    const row: Row = {
      name: `hub connector: tools/list of ${HUB_TOOLS + 1} tools at /mcp`,
      rps: load.rps,
      p50Ms: load.p50Ms,
      p99Ms: load.p99Ms,
      cpuUsPerReq: perListMs * 1000,
      rssMb: (await stack.gateway.stats()).rssMb,
      result: `${listed} tools on one page; the first listing (filling every catalog) took ${fillMs.toFixed(0)} ms`,
      note: "server CPU is the gateway's alone: listing comes from its catalog and reaches no tool server",
      checks: [atMost("gateway CPU per listing", { value: perListMs, digits: 2, unit: " ms" }, TARGETS.hubConnectorListCpuMs)],
    };
    if (listed < HUB_TOOLS + 2) row.checks.push({ target: `${HUB_TOOLS + 2} tools listed (hub_search_tools included)`, measured: `${listed}`, pass: false });
    if (load.errors > 0) row.checks.push({ target: "no failed requests", measured: `${load.errors} failed`, pass: false });
    return row;
  } finally {
    await stack.stop();
  }
}
