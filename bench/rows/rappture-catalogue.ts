// A hub's catalogue on the one connector: a gateway of 1,000 Rappture tools (`rappture`
// revisions, copies of the fermi fixture with their own ids and titles), listed at
// `{publicUrl}/mcp` and searched with hub_search_tools from their tool.xml alone, with no tool
// session started. Timed: the first listing (every tool.xml parsed), then one search; the
// gateway's memory for the catalogue is its live heap after the listing over before it.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { FileRecordStore } from "../../lib/gateway/index.ts";
import { ROOT } from "../build.ts";
import type { ServerChild, Servers } from "../child.ts";
import { INITIALIZE, PROTOCOL_VERSION } from "../requests.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";
import { addBenchUser } from "./gateway-postgres.ts";

export const CATALOGUE_TOOLS = 1000;

/** `n` copies of the fermi tool, `tool<i>/tool.xml`, ids model<i>, titles of their own. */
function writeCatalogue(dir: string, n: number): void {
  const source = readFileSync(join(ROOT, "fixtures", "rappture", "fermi", "tool.xml"), "utf8");
  for (let i = 0; i < n; i++) {
    const folder = join(dir, `tool${String(i).padStart(4, "0")}`);
    mkdirSync(folder);
    const xml = source
      .replace("<id>fermi</id>", `<id>model${i}</id>`)
      .replace("<title>Fermi-Dirac Function</title>", `<title>Band structure model ${i}</title>`)
      .replace("<about>Plots", `<about>Model ${i} of crystal family ${i % 37}. Plots`);
    writeFileSync(join(folder, "tool.xml"), xml);
  }
}

export async function rappturesCatalogueRow(servers: Servers): Promise<Row> {
  const dataDir = mkdtempSync(join(tmpdir(), "hubmcp-bench-catalogue-"));
  const tools = join(dataDir, "tools");
  let gateway: ServerChild | undefined;
  try {
    mkdirSync(tools);
    writeCatalogue(tools, CATALOGUE_TOOLS);
    const bearer = await addBenchUser(new FileRecordStore(dataDir));
    gateway = await servers.start("gateway", { profile: true, args: [dataDir, tools, "rappture"] });
    const url = `http://127.0.0.1:${gateway.port}/mcp`;
    const base = { "content-type": "application/json", accept: "application/json, text/event-stream", ...bearer };
    const init = await fetch(url, { method: "POST", body: INITIALIZE, headers: base });
    const session = init.headers.get("mcp-session-id");
    await init.arrayBuffer();
    if (!session) throw new Error(`initialize at /mcp failed: HTTP ${init.status}`);
    const headers = { ...base, "mcp-session-id": session, "mcp-protocol-version": PROTOCOL_VERSION };
    const ask = async (method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> => {
      const res = await fetch(url, { method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }), headers });
      const body = (await res.json()) as { result?: Record<string, unknown> };
      if (!body.result) throw new Error(`${method} at /mcp failed: HTTP ${res.status}`);
      return body.result;
    };
    const before = await gateway.stats(true);
    const heap0 = before.heapUsedMb;
    const t0 = performance.now();
    let listed = 0;
    let cursor: unknown;
    do {
      const page = await ask("tools/list", cursor === undefined ? {} : { cursor });
      listed += (page.tools as unknown[]).length;
      cursor = page.nextCursor;
    } while (typeof cursor === "string");
    const listMs = performance.now() - t0;
    // The gateway's own CPU for each: on a machine shared with other work, wall time says more about the others.
    const listed0 = await gateway.stats();
    const t1 = performance.now();
    const found = await ask("tools/call", { name: "hub_search_tools", arguments: { query: "band structure model 512 crystal family", limit: 5 } });
    const searchMs = performance.now() - t1;
    const searched = await gateway.stats();
    const stats = await gateway.stats(true);
    const top = ((found.structuredContent as { tools: Array<{ name: string }> }).tools[0]?.name ?? "nothing").replace(/^.*_/, "");
    const row: Row = {
      name: `hub connector: ${CATALOGUE_TOOLS.toLocaleString("en")} Rappture tools at /mcp, from tool.xml`,
      rssMb: stats.rssMb,
      result:
        `first tools/list ${listMs.toFixed(0)} ms (gateway CPU ${(listed0.cpuMs - before.cpuMs).toFixed(0)} ms, ${listed} tools), ` +
        `hub_search_tools ${searchMs.toFixed(1)} ms (CPU ${(searched.cpuMs - listed0.cpuMs).toFixed(1)} ms, top: ${top}), live heap +${(stats.heapUsedMb - heap0).toFixed(1)} MB`,
      note: "no tool session is started: every listing is parsed from its tool.xml in the gateway, cached per file",
      checks: [
        atMost("first listing", { value: listMs, digits: 0, unit: " ms" }, TARGETS.rappturesCatalogueListMs),
        atMost("search", { value: searchMs, digits: 1, unit: " ms" }, TARGETS.rappturesCatalogueSearchMs),
      ],
    };
    // Each tool, hub_search_tools and the one hub_get_job_result: no poller per tool.
    if (listed !== CATALOGUE_TOOLS + 2) row.checks.push({ target: `${CATALOGUE_TOOLS + 2} tools listed`, measured: `${listed}`, pass: false });
    if (top !== "model512") row.checks.push({ target: "the search finds model512 first", measured: top, pass: false });
    return row;
  } finally {
    await gateway?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
