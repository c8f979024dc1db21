// What 1,000 idle gateway sessions hold: RSS and live heap of the gateway after a full GC,
// before and after that many initialize through it (the tool server holds the MCP sessions,
// the gateway only sealed ids).
import { performance } from "node:perf_hooks";
import { setTimeout as sleep } from "node:timers/promises";
import type { Servers, Stats } from "../child.ts";
import type { LoadGenerator } from "../load.ts";
import { INITIALIZE } from "../requests.ts";
import type { Row } from "../row.ts";
import { atMost, TARGETS } from "../targets.ts";
import { MCP_ACCEPT, openGatewaySession, PATH, SETTLE_MS, type Stack, startStack } from "./gateway.ts";

/** Idle readings after a full GC, before and after opening the sessions. */
async function settled(stack: Stack): Promise<[Stats, Stats]> {
  return [await stack.gateway.stats(true), await stack.tool.stats(true)];
}

export async function gatewaySessionsRow(servers: Servers, gen: LoadGenerator, sessions: number): Promise<Row> {
  const stack = await startStack(servers);
  try {
    // One session first, so the tool session record exists and the code paths are loaded.
    await openGatewaySession(stack);
    await sleep(SETTLE_MS);
    const [gw0, tool0] = await settled(stack);
    const t0 = performance.now();
    const load = await gen.run({ port: stack.gateway.port, path: PATH, body: INITIALIZE, headers: { ...MCP_ACCEPT, ...stack.bearer } }, { requests: sessions });
    const openMs = performance.now() - t0;
    await sleep(SETTLE_MS);
    const [gw1, tool1] = await settled(stack);
    const gwGrowth = gw1.rssMb - gw0.rssMb;
    const toolGrowth = tool1.rssMb - tool0.rssMb;
    const held = (tool1.sessions ?? 0) - (tool0.sessions ?? 0);
    const row: Row = {
      name: `${sessions.toLocaleString("en-US")} idle gateway sessions`,
      rps: load.rps,
      p50Ms: load.p50Ms,
      p99Ms: load.p99Ms,
      rssMb: gw1.rssMb,
      result: `gateway +${gwGrowth.toFixed(1)} MB RSS; tool server +${toolGrowth.toFixed(1)} MB`,
      note:
        `RSS after a full GC, idle gateway (one session open) vs the same ${SETTLE_MS / 1000} s after ${sessions} initialize ` +
        `through it (${(openMs / 1000).toFixed(1)} s); gateway live heap ${gw0.heapUsedMb.toFixed(1)} → ${gw1.heapUsedMb.toFixed(1)} MB; ` +
        `the tool server holds the MCP sessions (${held} new), the gateway only sealed ids; req/s is the initialize rate`,
      checks: [
        atMost("gateway RSS growth", { value: gwGrowth, digits: 1, unit: " MB" }, TARGETS.gatewaySessionsMb),
        atMost("gateway live heap growth", { value: gw1.heapUsedMb - gw0.heapUsedMb, digits: 1, unit: " MB" }, TARGETS.gatewaySessionsHeapMb),
      ],
    };
    if (held !== sessions) row.checks.push({ target: `${sessions} sessions held by the tool server`, measured: `${held}`, pass: false });
    if (load.errors > 0) row.checks.push({ target: "no failed requests", measured: `${load.errors} failed`, pass: false });
    return row;
  } finally {
    await stack.stop();
  }
}
