// GET /readyz: whether this replica should get traffic (load balancers, Kubernetes readiness
// probes): its store answers in time and a tool session could start here. /healthz stays
// liveness (the process answers), so a store outage takes replicas out of rotation without
// having them restarted.
import type { RecordStore } from "../contracts/interfaces.ts";
import type { ToolSessions } from "../tool-sessions/tool-sessions.ts";

const PROBE_MS = 2_000;

export interface Readiness {
  ready: boolean;
  store: "ok" | "failing";
  sessions: "ok" | "unavailable";
}

/** `store`: the store past any cache, so the probe reaches it. */
export async function readiness(store: RecordStore, sessions: Pick<ToolSessions, "canStart">, probeMs = PROBE_MS): Promise<Readiness> {
  let timer: NodeJS.Timeout | undefined;
  const answered = await Promise.race([
    store.get("readiness", "probe").then(
      () => true,
      () => false,
    ),
    new Promise<false>((done) => (timer = setTimeout(() => done(false), probeMs))),
  ]);
  clearTimeout(timer);
  const canStart = sessions.canStart;
  return { ready: answered && canStart, store: answered ? "ok" : "failing", sessions: canStart ? "ok" : "unavailable" };
}
