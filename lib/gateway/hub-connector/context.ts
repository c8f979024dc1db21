// What the hub connector's parts share: the gateway's context, the catalogs, the session
// table, and each person's view of the catalog (kept per set of usable tools, so a listing
// or a call by any of a thousand people with the same groups reuses one merge).
import { upstreamOf, type GatewayContext } from "../calls/tool-call.ts";
import type { TokenVerifier, Principal, RecordStore } from "../contracts/interfaces.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";
import { Catalogs } from "./catalogs.ts";
import { RappturesLists } from "./rappture-lists.ts";
import { PersonView, toolsFor } from "./namespace.ts";
import { ConnectorSessions } from "./sessions.ts";

export interface ConnectorContext {
  readonly gw: GatewayContext;
  readonly verifiers: readonly TokenVerifier[];
  readonly catalogs: Catalogs;
  /** `rappture` revisions' lists, from their tool.xml: no tool session is started to list one. */
  readonly rappture: RappturesLists;
  readonly table: ConnectorSessions;
  readonly views: ViewCache;
  event(name: string, fields: Record<string, unknown>): void;
}

/** Tools listed at once while a view is built: each may start a tool session of the caller's. */
const FILL_CONCURRENCY = 4;

async function mapLimited<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) {
      const i = next++;
      out[i] = await work(items[i]!);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return out;
}

export class ViewCache {
  readonly #views = new Map<string, { at: number; generation: number; view: Promise<PersonView> }>();
  #generation = 0;
  readonly #maxAgeMs: number;

  constructor(maxAgeMs: number) {
    this.#maxAgeMs = maxAgeMs;
  }

  /** A tool's catalog changed: every view is rebuilt at its next use. */
  changed(): void {
    this.#generation++;
  }

  /**
   * The person's view. A tool listed live (`"catalog": false`) is listed from the caller's own
   * tool session, so a view holding one is kept for that person alone.
   */
  get(cc: ConnectorContext, principal: Principal): Promise<PersonView> {
    const { config } = cc.gw;
    const usable = toolsFor(config, principal);
    const personal = usable.some((t) => !config.tools[t]!.catalog);
    const key = `${personal ? principal.user : ""}\n${usable.join(",")}`;
    const kept = this.#views.get(key);
    if (kept && kept.generation === this.#generation && Date.now() - kept.at < this.#maxAgeMs) return kept.view;
    const view = this.#build(cc, principal, usable);
    if (this.#views.size >= 1000) this.#views.clear();
    const entry = { at: Date.now(), generation: this.#generation, view };
    this.#views.set(key, entry);
    // A view missing a tool that failed to list is not kept: the next call tries that tool again.
    const drop = (): boolean => this.#views.get(key) === entry && this.#views.delete(key);
    view.then((v) => v.complete || drop(), drop);
    return view;
  }

  async #build(cc: ConnectorContext, principal: Principal, usable: string[]): Promise<PersonView> {
    const { config, sessions } = cc.gw;
    const concurrency = Math.max(1, Math.min(FILL_CONCURRENCY, config.limits.sessionsPerUser - 1));
    const listed = await mapLimited(usable, concurrency, async (tool) => {
      const spec = config.tools[tool]!;
      const revision = spec.catalogRevision;
      let startedForFill: ToolSessionRecord | undefined;
      const session = async (): Promise<ToolSessionRecord> => {
        const before = Date.now();
        const rec = await sessions.acquire(principal.user, tool, revision);
        if (rec.since >= before) startedForFill = rec;
        return rec;
      };
      try {
        const served = spec.revisions[revision]!;
        if (served.kind === "rappture" && spec.catalog) return { tool, lists: await cc.rappture.get(served.rappture) };
        return { tool, lists: await cc.catalogs.get(tool, revision, spec.catalog, async () => upstreamOf(cc.gw, await session())) };
      } catch (err) {
        // One tool that cannot be listed leaves the others usable; its names come back when it lists.
        cc.event("catalog failed", { tool, revision, error: err instanceof Error ? err.message.slice(0, 200) : "unknown" });
        return null;
      } finally {
        // A tool session started only to list it is stopped at once: filling 300 catalogs must
        // not leave 300 processes running, nor use up the person's session cap.
        if (startedForFill) await sessions.stop(startedForFill.instance);
      }
    });
    return new PersonView(
      usable,
      listed.filter((l) => l !== null),
      !listed.includes(null),
    );
  }
}

const LISTS_CHANGED = ["tools", "prompts", "resources"].map((list) => ({ jsonrpc: "2.0", method: `notifications/${list}/list_changed` }));

/** Tools were registered, changed or removed: every view is rebuilt, and clients listening hear their lists changed. */
export function toolsChanged(cc: ConnectorContext, tools: readonly string[]): void {
  for (const tool of tools) cc.catalogs.forget(tool);
  cc.views.changed();
  for (const message of LISTS_CHANGED) cc.table.broadcast(message);
}

/** `store`: where /mcp sessions live, shared by every replica. */
export function createConnector(
  gw: GatewayContext,
  verifiers: readonly TokenVerifier[],
  event: ConnectorContext["event"],
  store: RecordStore,
): ConnectorContext {
  const { connector, limits } = gw.config;
  return {
    gw,
    verifiers,
    catalogs: new Catalogs(connector.catalogMaxAgeMs, (tool, revision) => event("catalog filled", { tool, revision })),
    rappture: new RappturesLists(),
    table: new ConnectorSessions({
      sealer: gw.sealer,
      store,
      idleMs: limits.idleTimeoutMs,
      shared: gw.sessions.shared,
      upstream: (rec) => upstreamOf(gw, rec),
    }),
    views: new ViewCache(connector.catalogMaxAgeMs),
    event,
  };
}
