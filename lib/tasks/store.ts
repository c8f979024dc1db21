// Where background runs live: lookup, per-session listing, expiry on an injectable clock,
// and the caps that keep memory bounded whatever clients do.
import { randomUUID } from "node:crypto";
import { silentLogger, type Logger } from "../util/logger.ts";
import type { Session } from "../session/session.ts";
import { AsyncRun, type RunKind, type Settled } from "./run.ts";
import { memoryPersistence, recordOf, restoreRun, type RunPersistence } from "./persist.ts";

export interface AsyncOptions {
  /** How long a finished job or task stays readable; 1 h by default. Reported as `ttlMs` / `ttl`. */
  ttlMs?: number;
  /** Polling interval suggested to clients; 1 s by default. */
  pollIntervalMs?: number;
  /** Handlers running at once over the whole server; 100 by default. */
  maxRunning?: number;
  /** Handlers running at once for one session; 10 by default. Session-less calls count only in the total. */
  maxRunningPerSession?: number;
  /** Records held at once, finished ones included; 10,000 by default. The oldest finished make room. */
  maxRecords?: number;
  /** How long `POST /tools/<name>` waits for an async tool before answering 202; 25 s by default. */
  restWaitMs?: number;
  /** Entries per `tasks/list` page; 50 by default. */
  listPageSize?: number;
  /** Clock, injectable for tests. */
  now?: () => number;
}

export type ResolvedAsyncOptions = Required<AsyncOptions>;

export function resolveAsyncOptions(o: AsyncOptions = {}): ResolvedAsyncOptions {
  return {
    ttlMs: o.ttlMs ?? 3_600_000,
    pollIntervalMs: o.pollIntervalMs ?? 1000,
    maxRunning: o.maxRunning ?? 100,
    maxRunningPerSession: o.maxRunningPerSession ?? 10,
    maxRecords: o.maxRecords ?? 10_000,
    restWaitMs: o.restWaitMs ?? 25_000,
    listPageSize: o.listPageSize ?? 50,
    now: o.now ?? Date.now,
  };
}

export interface StartRequest {
  how: RunKind;
  session: Session | null;
  toolName: string;
  /** A shorter lifetime the client asked for (MCP `task.ttl`); never longer than the configured one. */
  ttlMs?: number;
  /** A stateless task's client capabilities: what its questions may ask for. */
  clientCapabilities?: Record<string, unknown>;
  /** Runs the handler; must not throw (runTool turns handler failures into results). */
  execute(run: AsyncRun): Promise<Settled>;
}

export type StartOutcome = { ok: true; run: AsyncRun } | { ok: false; reason: "session-cap" | "total-cap" | "full"; message: string };

const SWEEP_EVERY_MS = 1000;

export class AsyncStore {
  readonly options: ResolvedAsyncOptions;
  readonly #logger: Logger;
  /** Insertion order is creation order: listing and eviction rely on it. */
  readonly #runs = new Map<string, AsyncRun>();
  readonly #runningBySession = new Map<string, number>();
  readonly #watched = new WeakSet<Session>();
  #running = 0;
  #seq = 0;
  #lastSweep = -Infinity;
  readonly #persistence: RunPersistence;
  /** Set by close() with a state directory: sessions ending with the server keep their tasks on disk. */
  #keepOnSessionEnd = false;
  readonly #onChange = (run: AsyncRun): void => this.#save(run);

  /**
   * Run lifecycle events go to `logger` at debug level (MCP tasks, "Audit and Logging").
   * With a `persistence` other than memory, runs it holds are read back at once: finished
   * ones answer until their TTL, ones cut off by the previous process read as failed.
   */
  constructor(options: AsyncOptions = {}, logger: Logger = silentLogger, persistence: RunPersistence = memoryPersistence) {
    this.options = resolveAsyncOptions(options);
    this.#logger = logger;
    this.#persistence = persistence;
    this.#restore();
  }

  now(): number {
    return this.options.now();
  }

  get size(): number {
    return this.#runs.size;
  }

  /** Handlers still running, over every session. */
  get running(): number {
    return this.#running;
  }

  start(request: StartRequest): StartOutcome {
    const { maxRunning, maxRunningPerSession } = this.options;
    const sessionId = request.session?.id ?? null;
    if (sessionId !== null && (this.#runningBySession.get(sessionId) ?? 0) >= maxRunningPerSession) {
      return {
        ok: false,
        reason: "session-cap",
        message: `Too many running jobs in this session (limit ${maxRunningPerSession}); try again when one finishes`,
      };
    }
    if (this.#running >= maxRunning) {
      return { ok: false, reason: "total-cap", message: `Too many running jobs on this server (limit ${maxRunning}); try again later` };
    }
    this.#sweep(false);
    this.#keepOnSessionEnd = false;
    if (this.#runs.size >= this.options.maxRecords && !this.#evictOldestFinished()) {
      return { ok: false, reason: "full", message: "Too many jobs held on this server; try again later" };
    }
    const ttlMs = request.ttlMs !== undefined && request.ttlMs > 0 ? Math.min(request.ttlMs, this.options.ttlMs) : this.options.ttlMs;
    const run = new AsyncRun({
      id: randomUUID(),
      seq: ++this.#seq,
      how: request.how,
      sessionId,
      toolName: request.toolName,
      now: this.now(),
      ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
      clock: () => this.now(),
      ...(request.clientCapabilities ? { clientCapabilities: request.clientCapabilities } : {}),
      onChange: this.#onChange,
    });
    this.#runs.set(run.id, run);
    this.#save(run);
    this.#count(sessionId, +1);
    if (request.session && request.how.kind === "task") this.#watch(request.session);
    this.#logger.debug("async run started", { id: run.id, tool: run.toolName, kind: run.how.kind });
    // The executor runs the handler at once; a synchronous throw still ends as a failed run.
    void new Promise<Settled>((resolve) => resolve(request.execute(run)))
      .catch((): Settled => ({ result: { content: [{ type: "text", text: "Tool failed" }], isError: true }, value: null }))
      .then((settled) => {
        run.handlerSettled(settled, this.now());
        this.#count(sessionId, -1);
        this.#logger.debug("async run finished", { id: run.id, tool: run.toolName, status: run.status });
      });
    return { ok: true, run };
  }

  /** The run with this id, unless it expired. */
  get(id: unknown): AsyncRun | undefined {
    if (typeof id !== "string") return undefined;
    const run = this.#runs.get(id);
    if (run && run.expired(this.now())) {
      this.#forget(id);
      return undefined;
    }
    return run;
  }

  /** Requests cooperative cancellation; false when the run had already ended. */
  cancel(run: AsyncRun): boolean {
    if (!run.cancel(this.now())) return false;
    this.#logger.debug("async run cancelled", { id: run.id, tool: run.toolName });
    return true;
  }

  /** Forgets a run (a job after its first terminal poll); a live one is cancelled first. */
  delete(id: string): void {
    const run = this.#runs.get(id);
    if (!run) return;
    this.cancel(run);
    this.#forget(id);
  }

  /** Tasks of one session created after `afterSeq`, oldest first. */
  tasksOf(sessionId: string, afterSeq: number, limit: number): { tasks: AsyncRun[]; more: boolean } {
    this.#sweep(true);
    const tasks: AsyncRun[] = [];
    for (const run of this.#runs.values()) {
      if (run.seq <= afterSeq || run.sessionId !== sessionId || run.how.kind !== "task") continue;
      if (tasks.length === limit) return { tasks, more: true };
      tasks.push(run);
    }
    return { tasks, more: false };
  }

  /**
   * Stops every live run (server shutdown). Records stay until their TTL, so a job polls as
   * cancelled; with a state directory a run reads as cut off by the restart, as after a crash.
   */
  close(): void {
    const keep = this.#persistence !== memoryPersistence;
    this.#keepOnSessionEnd = keep;
    for (const run of this.#runs.values()) {
      if (keep) run.cutOff(this.now());
      else this.cancel(run);
    }
  }

  /** Attaches the tool's durable handle to a live run; false once it ended. */
  setHandle(run: AsyncRun, entries: Record<string, unknown>): boolean {
    return run.setHandle(entries, this.now());
  }

  /** A session's tasks can be read by nobody else once it ends, so they stop and go. */
  #watch(session: Session): void {
    if (this.#watched.has(session)) return;
    this.#watched.add(session);
    session.onEnd(() => {
      if (this.#keepOnSessionEnd) return;
      for (const run of [...this.#runs.values()]) {
        if (run.sessionId !== session.id || run.how.kind !== "task") continue;
        this.cancel(run);
        this.#forget(run.id);
      }
    });
  }

  #forget(id: string): void {
    this.#runs.delete(id);
    this.#persistence.remove(id);
  }

  /** A failing disk must not fail the call: the run goes on in memory and the log says why. */
  #save(run: AsyncRun): void {
    if (this.#persistence === memoryPersistence || !this.#runs.has(run.id)) return;
    try {
      this.#persistence.save(recordOf(run));
    } catch (err) {
      this.#logger.warn("could not write an async run to the state directory", { id: run.id, error: (err as NodeJS.ErrnoException).code ?? "write failed" });
    }
  }

  #restore(): void {
    const now = this.now();
    const records = this.#persistence.load().sort((a, b) => a.seq - b.seq);
    for (const record of records) {
      const run = restoreRun(record, now, this.#onChange);
      if (run.expired(now)) {
        this.#persistence.remove(run.id);
        continue;
      }
      this.#runs.set(run.id, run);
      this.#seq = Math.max(this.#seq, run.seq);
      // A run cut off by the restart now reads as failed: the file says so too.
      if (record.status !== run.status) this.#save(run);
    }
    // The cap holds across restarts too: the oldest records make room, as when running.
    while (this.#runs.size > this.options.maxRecords && this.#evictOldestFinished());
    if (this.#runs.size > 0) this.#logger.info("async runs read back from the state directory", { runs: this.#runs.size });
  }

  #count(sessionId: string | null, delta: 1 | -1): void {
    this.#running += delta;
    if (sessionId === null) return;
    const n = (this.#runningBySession.get(sessionId) ?? 0) + delta;
    if (n > 0) this.#runningBySession.set(sessionId, n);
    else this.#runningBySession.delete(sessionId);
  }

  #sweep(force: boolean): void {
    const now = this.now();
    if (!force && now - this.#lastSweep < SWEEP_EVERY_MS && this.#runs.size < this.options.maxRecords) return;
    this.#lastSweep = now;
    for (const [id, run] of this.#runs) if (run.expired(now)) this.#forget(id);
  }

  #evictOldestFinished(): boolean {
    for (const [id, run] of this.#runs) {
      if (run.terminal && !run.running) {
        this.#forget(id);
        return true;
      }
    }
    return false;
  }
}
