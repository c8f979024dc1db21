// Bytes allocated per request, the one figure other work on the machine cannot disturb.
// Each server runs with a fixed-size young generation, so every scavenge stands for about
// one semi-space of allocation; scavenges × semi-space ÷ requests is the allocation rate.
// Allocation is what the server's garbage collector pays for, and it drives RSS growth.
import type { Servers } from "../child.ts";
import type { LoadGenerator } from "../load.ts";
import { openSession } from "../requests.ts";
import type { ServerKind } from "../servers/types.ts";
import { SCENARIOS } from "./scenarios.ts";

const SEMI_SPACE_MB = 16;
const FLAGS = [`--min-semi-space-size=${SEMI_SPACE_MB}`, `--max-semi-space-size=${SEMI_SPACE_MB}`];
const WARMUP_REQUESTS = 2000;

/** KB allocated per request, by scenario name. */
export async function allocationPerRequest(servers: Servers, gen: LoadGenerator, requests: number): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const kind of ["baseline", "hubmcp"] satisfies ServerKind[]) {
    const server = await servers.start(kind, { nodeFlags: FLAGS });
    try {
      const sessionId = kind === "hubmcp" ? await openSession(server.port) : "";
      for (const scenario of SCENARIOS.filter((s) => s.kind === kind)) {
        const target = scenario.target(server.port, sessionId);
        await gen.run(target, { requests: WARMUP_REQUESTS });
        const before = await server.stats();
        const run = await gen.run(target, { requests });
        const after = await server.stats();
        out.set(scenario.name, ((after.scavenges - before.scavenges) * SEMI_SPACE_MB * 1024) / run.total);
      }
    } finally {
      await server.stop();
    }
  }
  return out;
}
