// The tool registry's row (issue 37): tools/call in a session through a gateway whose store
// holds 1,000 registered tools, against the same gateway with its one tool, slices taking
// turns in one run. Each gateway runs in its own process on its own data dir (the registry
// lives in the store, and the hop rows' gateways must not see it); the registered tools are
// `url` revisions of the same tool server, written through the registry's own code.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { FileRecordStore } from "../../lib/gateway/index.ts";
import { ToolRegistry } from "../../lib/gateway/tool-registry/registry.ts";
import type { ServerChild, Servers } from "../child.ts";
import type { LoadGenerator, Target } from "../load.ts";
import { CALL_ADD, expectSum, PROTOCOL_VERSION, probe } from "../requests.ts";
import type { Row } from "../row.ts";
import { GATEWAY_TOOL } from "../servers/gateway.ts";
import { atMost, TARGETS } from "../targets.ts";
import { addBenchUser } from "./gateway-postgres.ts";
import { type Lane, laneRow, openGatewaySession, slice, strip } from "./gateway.ts";
import type { Slicing } from "./throughput.ts";

const REGISTERED = 1000;

export async function registryHopRows(servers: Servers, gen: LoadGenerator, slicing: Slicing): Promise<Row[]> {
  const dirs = [mkdtempSync(join(tmpdir(), "hubmcp-bench-registry-")), mkdtempSync(join(tmpdir(), "hubmcp-bench-registry-"))];
  const started: ServerChild[] = [];
  try {
    const tool = await servers.start("hubmcp");
    started.push(tool);
    const upstream = `http://127.0.0.1:${tool.port}/`;
    const bearers = [await addBenchUser(new FileRecordStore(dirs[0]!)), await addBenchUser(new FileRecordStore(dirs[1]!))];
    const list = Array.from({ length: REGISTERED }, (_, i) => ({ name: `r${i}`, revisions: { default: { url: upstream } } }));
    await new ToolRegistry(new FileRecordStore(dirs[1]!), { config: { tools: {}, registry: { runAs: [], env: [], inherited: {} } }, who: "bench" }).import(
      list,
    );
    const lanes: Lane[] = [];
    for (const [i, name] of [
      "gateway hop: via gateway, 1 tool (the registry row's twin)",
      `gateway hop: via gateway, ${REGISTERED.toLocaleString("en")} registered tools`,
    ].entries()) {
      const gateway = await servers.start("gateway", { args: [dirs[i]!, upstream, "cached"] });
      started.push(gateway);
      const target: Target = {
        port: gateway.port,
        path: `/api/mcp/${GATEWAY_TOOL}/mcp`,
        body: CALL_ADD,
        headers: {
          accept: "application/json, text/event-stream",
          ...bearers[i],
          "mcp-session-id": await openGatewaySession({ gateway, bearer: bearers[i]! }),
          "mcp-protocol-version": PROTOCOL_VERSION,
        },
      };
      lanes.push({ name, target, costs: [gateway, tool], runs: [], cpuMs: [0, 0] });
    }
    for (const lane of lanes) {
      await probe(lane.target, expectSum.rpc);
      await gen.run(lane.target, { durationMs: slicing.warmupMs, warmupMs: 0 });
    }
    const rounds = Math.max(1, Math.round(slicing.durationMs / 2 / slicing.sliceMs));
    for (let round = 0; round < rounds; round++) for (let i = 0; i < lanes.length; i++) await slice(gen, lanes[(round + i) % lanes.length]!, slicing.sliceMs);
    const [one, many] = lanes.map(laneRow) as [Row & { total: number }, Row & { total: number }];
    const own = (lane: Lane, row: { total: number }): number => lane.cpuMs[0]! / row.total;
    one.ratio = 1;
    one.note = `not a target: the ${REGISTERED.toLocaleString("en")}-tool row's twin, a gateway process with one tool; ${rounds} slices of ${slicing.sliceMs} ms per row, taking turns`;
    many.ratio = many.rps! / one.rps!;
    many.note = `the same gateway with ${REGISTERED.toLocaleString("en")} tools registered in its store (\`url\` revisions), calling the same one; × baseline is against the one-tool row`;
    many.checks.push(
      atMost(
        `gateway CPU/req, ${REGISTERED.toLocaleString("en")} registered tools vs 1`,
        { value: own(lanes[1]!, many) / own(lanes[0]!, one), digits: 2, unit: "×" },
        TARGETS.registryGatewayCpu,
      ),
    );
    return [one, many].map(strip);
  } finally {
    await Promise.all(started.map((s) => s.stop()));
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}
