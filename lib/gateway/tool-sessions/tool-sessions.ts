// Tool sessions: one running tool server per (user, tool, revision), started on first use
// and shared by every gateway replica through records in the data dir (./records.ts).
// The replica that started a session owns its process (idle stop, crash report, shutdown);
// any replica can route to it.
import { randomBytes } from "node:crypto";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { launchBackend, launchFailure, ToolSessionLaunchError, type Backend, type LaunchRequest } from "../backends/index.ts";
import { GatewayError } from "../contracts/respond.ts";
import { ToolSessionCaps, tooMany, tooManyForUser } from "./caps.ts";
import { EVERYONE, isShared, SharedSessions } from "./isolation.ts";
import { StateRoots } from "../hosting/state-dirs.ts";
import { SESSIONS, toolSessionKey, toolSessionsOf, USE, WEBER, type ToolSessionRecord } from "./records.ts";

export interface ToolSessionsOptions {
  /** May remember records a while (see CachingRecordStore); decisions to change one use `readFresh`. */
  store: RecordStore;
  /** The record as the data dir has it now, past any cache in `store`; `store.get` by default. */
  readFresh?<T>(collection: string, id: string): Promise<T | undefined>;
  /** When `store` is a CachingRecordStore, its copyOf: a running session's record is then parsed once per remembered copy, not per request. */
  copyOf?(collection: string, id: string): object | undefined;
  config: GatewayConfig;
  publicUrl: () => string;
  /** Replaceable for specs; launchBackend by default. */
  launch?: (req: LaunchRequest) => Promise<Backend>;
  /** The environment tool session children start from. */
  childEnv?: NodeJS.ProcessEnv;
  onEvent(event: string, fields: Record<string, unknown>): void;
}

const TOUCH_EVERY_MS = 5_000;

interface Owned {
  key: string;
  backend: Backend;
  /** The ready record, for operators (the /admin page). */
  rec: ToolSessionRecord;
  /** The revision's kind: `command`, `app`, `url`, `slurm`, … */
  kind: string;
  stopping: boolean;
  /** A `url` revision's: its server outlives this replica (see #runsWithoutUs). */
  runsWithoutUs: boolean;
}

export class ToolSessions {
  /** Identifies this replica in records. */
  readonly owner = randomBytes(8).toString("hex");
  readonly #o: ToolSessionsOptions;
  readonly #owned = new Map<string, Owned>();
  readonly #starting = new Map<string, Promise<ToolSessionRecord | null>>();
  readonly #touched = new Map<string, number>();
  /** Ready records as last read, each with the identity of the cache's copy it came from. */
  readonly #ready = new Map<string, { rec: ToolSessionRecord; copy: object }>();
  readonly #sweeper: NodeJS.Timeout;
  readonly #caps: ToolSessionCaps;
  readonly #stateRoots: StateRoots;
  /** People's MCP sessions on shared revisions. */
  readonly shared: SharedSessions;
  #closed = false;

  constructor(options: ToolSessionsOptions) {
    this.#o = options;
    this.#caps = new ToolSessionCaps({
      store: options.store,
      limits: options.config.limits,
      readFresh: (collection, id) => this.#fresh(collection, id),
      liveInstances: async () => new Set((await options.store.list<ToolSessionRecord>(SESSIONS)).map((r) => r.value.instance)),
    });
    this.#stateRoots = new StateRoots(options.store, (collection, id) => this.#fresh(collection, id));
    this.shared = new SharedSessions(options.config.limits, options.onEvent);
    const every = Math.max(1000, Math.min(60_000, options.config.limits.idleTimeoutMs / 4));
    // People's sessions first: a shared tool server idle too is stopped after it has ended them.
    this.#sweeper = setInterval(
      () =>
        void this.shared
          .sweep()
          .then(() => this.sweepIdle())
          .catch(() => undefined),
      every,
    );
    this.#sweeper.unref();
  }

  #keepReady(key: string, rec: ToolSessionRecord): void {
    const copy = this.#o.copyOf?.(SESSIONS, key);
    if (!copy) return;
    if (this.#ready.size >= 10_000) this.#ready.clear();
    // Shared by every request that reads it until the copy changes: frozen, so none can alter it for the others.
    this.#ready.set(key, { rec: Object.freeze(rec), copy });
  }

  /** Tool sessions whose process this replica runs. */
  get liveOwned(): number {
    return this.#owned.size;
  }

  /** The ready record of a running tool session while the cache's copy of it is unchanged: touched, as every use is. */
  #known(key: string): ToolSessionRecord | undefined {
    const known = this.#ready.get(key);
    if (!known || known.copy !== this.#o.copyOf?.(SESSIONS, key)) return undefined;
    this.touch(key);
    return known.rec;
  }

  /**
   * acquire, answered at once when the tool session is running and its record is remembered
   * unchanged: a request to a running tool session then waits for no promise.
   */
  acquireNow(person: string, tool: string, revision: string): ToolSessionRecord | Promise<ToolSessionRecord> {
    const key = toolSessionKey(isShared(this.#o.config, tool, revision) ? EVERYONE : person, tool, revision);
    return (!this.#closed && !this.#starting.has(key) && this.#known(key)) || this.acquire(person, tool, revision);
  }

  /**
   * The running tool session for (user, tool, revision), started when there is none; on a
   * shared revision, the one everyone uses (its record's user is EVERYONE).
   * `fresh`: read past the cache, when a remembered record disagrees with the request.
   */
  async acquire(person: string, tool: string, revision: string, fresh = false): Promise<ToolSessionRecord> {
    const user = isShared(this.#o.config, tool, revision) ? EVERYONE : person;
    const key = toolSessionKey(user, tool, revision);
    const bound = this.#o.config.limits.startTimeoutMs;
    for (let attempt = 0; ; attempt++) {
      if (this.#closed) throw new GatewayError("shutting_down", "The gateway is shutting down", { "retry-after": "5" });
      const mine = this.#starting.get(key);
      if (mine) {
        const started = await mine;
        if (started) return started;
        continue;
      }
      const known = fresh ? undefined : this.#known(key);
      if (known) return known;
      const rec = fresh ? await this.#fresh<ToolSessionRecord>(SESSIONS, key) : await this.#o.store.get<ToolSessionRecord>(SESSIONS, key);
      if (rec?.state === "ready") {
        this.touch(key);
        this.#keepReady(key, rec);
        return rec;
      }
      if (rec?.state === "crashed") {
        await this.#forget(key, rec.instance);
        throw new GatewayError("tool_session_crashed", "The tool session ended unexpectedly; the next request starts a new one");
      }
      if (rec?.state === "starting") {
        // Another replica is starting it: wait for its record, or take over a stale one.
        if (Date.now() - rec.since > bound + 5_000) await this.#forget(key, rec.instance);
        else await new Promise((done) => setTimeout(done, Math.min(50 * 2 ** Math.min(attempt, 5), 500)));
        continue;
      }
      await this.#checkCaps(user);
      const started = await this.#start(key, user, tool, revision);
      if (started) return started;
    }
  }

  /** A quick refusal before anything is written; ToolSessionCaps.claim is what holds when requests race. */
  async #checkCaps(user: string): Promise<void> {
    const all = await this.#o.store.list<ToolSessionRecord>(SESSIONS);
    const { sessionsTotal, sessionsPerUser } = this.#o.config.limits;
    if (all.length >= sessionsTotal) throw tooMany();
    if (user !== EVERYONE && all.filter((r) => r.value.user === user).length >= sessionsPerUser) throw tooManyForUser(sessionsPerUser);
  }

  /** Resolves null when another replica created the record first. */
  #start(key: string, user: string, tool: string, revision: string): Promise<ToolSessionRecord | null> {
    const spec = this.#o.config.tools[tool]?.revisions[revision];
    if (!spec) throw new GatewayError("unknown_revision", "No such revision of this tool");
    const instance = randomBytes(16).toString("hex");
    const record: ToolSessionRecord = { state: "starting", instance, user, tool, revision, owner: this.owner, since: Date.now() };
    const run = (async (): Promise<ToolSessionRecord | null> => {
      if (!(await this.#o.store.create(SESSIONS, key, record))) return null;
      const refused = await this.#caps.claim(user === EVERYONE ? undefined : user, key, instance);
      if (refused) {
        await this.#forget(key, instance);
        throw refused;
      }
      let backend: Backend;
      try {
        backend = await (this.#o.launch ?? launchBackend)({
          revision: spec,
          user,
          tool,
          revisionName: revision,
          instance,
          publicUrl: this.#o.publicUrl(),
          startTimeoutMs: this.#o.config.limits.startTimeoutMs,
          env: this.#o.childEnv,
          stateRoots: this.#stateRoots,
          onOutput: (line) => this.#o.onEvent("tool session output", { tool, revision, line: line.slice(0, 500) }),
        });
      } catch (err) {
        await this.#o.store.delete(SESSIONS, key);
        const code = err instanceof ToolSessionLaunchError ? err.code : "HUBMCP_SESSION_LAUNCH_FAILED";
        this.#o.onEvent("tool session failed to start", { tool, revision, user, backend: spec.kind, code, reason: launchFailure(err) });
        if (code === "HUBMCP_SESSION_NEVER_READY")
          throw new GatewayError("tool_session_not_ready", "The tool session did not become ready in time and was stopped");
        throw new GatewayError("tool_session_failed", "The tool session could not be started");
      }
      // A shared tool server has no session proxy path: that path's cookie is one person's.
      const weberPrefix = user === EVERYONE ? undefined : backend.weberPrefix;
      const ready: ToolSessionRecord = {
        ...record,
        state: "ready",
        since: Date.now(),
        url: backend.url,
        cookie: backend.cookie,
        weberPrefix,
        pid: backend.pid,
        jobId: backend.jobId,
      };
      const owned: Owned = { key, backend, rec: ready, kind: spec.kind, stopping: false, runsWithoutUs: this.#runsWithoutUs(tool, revision) };
      this.#owned.set(instance, owned);
      void backend.exited.then(() => this.#onExit(instance, owned)).catch(() => undefined);
      if (weberPrefix) await this.#o.store.put(WEBER, instance, { key });
      await this.#o.store.put(SESSIONS, key, ready);
      this.touch(key);
      this.#o.onEvent("tool session started", { tool, revision, user, backend: spec.kind, ms: ready.since - record.since });
      if (this.#closed) await this.#stop(instance, "shutdown");
      return ready;
    })();
    const shared = run.finally(() => this.#starting.delete(key));
    this.#starting.set(
      key,
      shared.catch(() => null),
    );
    return shared;
  }

  async #onExit(instance: string, owned: Owned): Promise<void> {
    this.#owned.delete(instance);
    if (owned.stopping) return;
    this.#o.onEvent("tool session crashed", {});
    this.#stopped(owned, "crashed", undefined);
    const rec = await this.#fresh<ToolSessionRecord>(SESSIONS, owned.key);
    if (rec?.instance === instance) await this.#o.store.put(SESSIONS, owned.key, { ...rec, state: "crashed" });
    await this.#o.store.delete(WEBER, instance);
  }

  /** The record behind a session proxy path, if that tool session still runs. */
  async byInstance(instance: string): Promise<ToolSessionRecord | undefined> {
    if (!/^[0-9a-f]{32}$/.test(instance)) return undefined;
    const route = await this.#o.store.get<{ key: string }>(WEBER, instance);
    if (!route) return undefined;
    const rec = await this.#o.store.get<ToolSessionRecord>(SESSIONS, route.key);
    return rec?.instance === instance && rec.state === "ready" ? rec : undefined;
  }

  /** Marks a session used (shared with other replicas at most every few seconds). */
  touch(key: string): void {
    const now = Date.now();
    if (now - (this.#touched.get(key) ?? 0) < TOUCH_EVERY_MS) return;
    this.#touched.set(key, now);
    void this.#o.store.put(USE, key, { at: now }).catch(() => undefined);
  }

  /**
   * The upstream connection failed. A tool session whose process is gone is forgotten, so
   * the next request starts a new one; a live one (a stale pooled socket) is kept.
   */
  async unreachable(rec: ToolSessionRecord, code: string | undefined): Promise<void> {
    if (this.#runsWithoutUs(rec.tool, rec.revision)) return;
    const owned = this.#owned.get(rec.instance);
    if (owned) {
      let timer: NodeJS.Timeout | undefined;
      const gone = await Promise.race([owned.backend.exited.then(() => true), new Promise<false>((done) => (timer = setTimeout(() => done(false), 1000)))]);
      clearTimeout(timer);
      if (!gone) return;
    } else if (code !== "ECONNREFUSED") return;
    await this.#forget(toolSessionKey(rec.user, rec.tool, rec.revision), rec.instance);
  }

  /**
   * Ends the tool sessions this replica runs of revisions no longer served (a registered
   * tool or revision removed). Only its own: another replica may serve a tool registered
   * since this one last read the registry.
   */
  async retire(): Promise<void> {
    const served = (key: string): boolean => {
      const [, tool, revision] = key.split("\n") as [string, string, string];
      return this.#o.config.tools[tool]?.revisions[revision] !== undefined;
    };
    for (const [instance, owned] of [...this.#owned]) {
      if (served(owned.key)) continue;
      this.#o.onEvent("tool session's revision removed; stopping", {});
      await this.#stop(instance, "retired");
    }
  }

  async sweepIdle(now = Date.now()): Promise<void> {
    await this.retire();
    const idle = this.#o.config.limits.idleTimeoutMs;
    for (const [instance, owned] of [...this.#owned]) {
      // Its record gone (forgetToolSessionsOf, or another replica took the key over): nobody can reach it.
      if ((await this.#fresh<ToolSessionRecord>(SESSIONS, owned.key))?.instance !== instance) {
        this.#o.onEvent("tool session forgotten; stopping", {});
        await this.#stop(instance, "forgotten");
        continue;
      }
      if (now - (await this.#lastUse(owned.key)) < idle) continue;
      this.#o.onEvent("tool session idle; stopping", {});
      await this.#stop(instance, "idle");
    }
    // A url revision's session has no process to stop, so any replica ends it once idle: one
    // left by a replica that has gone away is not kept (nor its places under the caps) for ever.
    for (const { id, value } of await this.#o.store.list<ToolSessionRecord>(SESSIONS)) {
      if (this.#owned.has(value.instance) || value.state !== "ready" || !this.#runsWithoutUs(value.tool, value.revision)) continue;
      if (now - (await this.#lastUse(id)) >= idle) await this.#forget(id, value.instance);
    }
  }

  /** When a session was last used, by any replica. */
  async #lastUse(key: string): Promise<number> {
    const shared = (await this.#o.store.get<{ at: number }>(USE, key))?.at ?? 0;
    return Math.max(shared, this.#touched.get(key) ?? 0);
  }

  /** A person's own tool sessions, as the data dir has them (any replica's), oldest first. */
  of(user: string): Promise<ToolSessionRecord[]> {
    return toolSessionsOf(this.#o.store, user);
  }

  /**
   * Ends one of `user`'s own tool sessions: stopped here when this replica runs it, else
   * forgotten, which its owner sees at its next sweep and stops it. False when `user` has
   * no session with that instance (another person's included).
   */
  async endOf(user: string, instance: string): Promise<boolean> {
    if (!/^[0-9a-f]{32}$/.test(instance)) return false;
    const found = (await this.#o.store.list<ToolSessionRecord>(SESSIONS)).find(({ value }) => value.instance === instance && value.user === user);
    if (!found) return false;
    if (this.#owned.has(instance)) await this.#stop(instance, "stopped by its user");
    else await this.#forget(found.id, instance);
    this.#o.onEvent("tool session stopped by its user", {});
    return true;
  }

  /** Stops a tool session this replica runs (one the hub connector started only to fill a catalog, or one an operator stops: \`by\`). */
  stop(instance: string, reason = "ended", by?: string): Promise<void> {
    return this.#stop(instance, reason, by);
  }

  /** The tool sessions whose process this replica runs, with how each runs (for /metrics and /admin). */
  owned(): Array<{ rec: ToolSessionRecord; kind: string }> {
    return [...this.#owned.values()].map((o) => ({ rec: o.rec, kind: o.kind }));
  }

  /** Whether a new tool session could start here now: not shutting down, and under the gateway's cap. */
  get canStart(): boolean {
    return !this.#closed && this.#owned.size < this.#o.config.limits.sessionsTotal;
  }

  /** One line for the audit trail and /metrics: a tool session this replica ran has ended. */
  #stopped(owned: Owned, reason: string, by: string | undefined): void {
    const { tool, revision, user, since } = owned.rec;
    this.#o.onEvent("tool session stopped", { tool, revision, user, backend: owned.kind, ms: Date.now() - since, reason, ...(by ? { by } : {}) });
  }

  // Another replica may have started a new session under this key since this one was read.
  async #forget(key: string, instance: string): Promise<void> {
    const rec = await this.#fresh<ToolSessionRecord>(SESSIONS, key);
    if (rec?.instance === instance) await this.#o.store.delete(SESSIONS, key);
    await this.#o.store.delete(WEBER, instance);
  }

  async #stop(instance: string, reason: string, by?: string): Promise<void> {
    const owned = this.#owned.get(instance);
    if (!owned) return;
    if (!owned.stopping) this.#stopped(owned, reason, by);
    owned.stopping = true;
    await this.#forget(owned.key, instance);
    this.#touched.delete(owned.key);
    await owned.backend.stop();
    this.#owned.delete(instance);
  }

  /**
   * A `url` revision's server runs whether or not any gateway does: no failure of ours (a
   * refused connection, this replica stopping) says its sessions ended, so its record stays
   * for the replicas still serving them.
   */
  #runsWithoutUs(tool: string, revision: string): boolean {
    return this.#o.config.tools[tool]?.revisions[revision]?.kind === "url";
  }

  #fresh<T>(collection: string, id: string): Promise<T | undefined> {
    return this.#o.readFresh ? this.#o.readFresh<T>(collection, id) : this.#o.store.get<T>(collection, id);
  }

  /** Stops every tool session this replica runs; those of `url` revisions are left to the other replicas. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#sweeper);
    await Promise.allSettled([...this.#starting.values()]);
    for (const [instance, owned] of this.#owned) if (owned.runsWithoutUs) this.#owned.delete(instance);
    await Promise.all([...this.#owned.keys()].map((i) => this.#stop(i, "shutdown")));
  }
}
