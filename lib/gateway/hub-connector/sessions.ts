// Sessions of /mcp clients (MCP 2025-11-25 and earlier). The Mcp-Session-Id is sealed by
// the gateway (../session-seal.ts) and names the person it was minted for: another
// person's token naming it, or any per-tool route, gets "not found". The session's state
// (the client's initialize params, and per tool the tool session and the MCP session opened
// on it for this client) lives in this replica's memory: a client sent to another replica
// gets 404 and initializes again, as MCP provides for. A session forgotten for any reason
// (DELETE, idle, a person's or the table's bound) ends what it opened on the tool servers
// (DELETE there, and its place among the person's sessions on a shared revision given back):
// nothing the gateway opened for a client outlives the client's session.
import { randomBytes } from "node:crypto";
import type { SessionSealer } from "../session-seal.ts";
import { GatewayError } from "../respond.ts";
import type { Upstream } from "../forward.ts";
import type { ToolSessionRecord } from "../tool-session-records.ts";
import { EVERYONE, type SharedSessions } from "../isolation.ts";
import { end } from "../upstream-mcp.ts";

/** One tool as this client uses it: the tool session and the MCP session on it. */
export interface Link {
  readonly tool: string;
  readonly rec: ToolSessionRecord;
  /** Where its requests go, on the gateway's connections. */
  readonly up: Upstream;
  readonly session: string | undefined;
}

/** Sessions one person may hold at once; initializing another forgets their oldest. */
const PER_USER = 100;

/** Marks a connector id apart from per-tool ids, whose `tool` is a tool name. */
const CONNECTOR = "*";

export class ConnectorSession {
  readonly key: string;
  readonly user: string;
  readonly id: string;
  readonly initParams: Record<string, unknown>;
  readonly protocolVersion: string;
  /** Per tool, its link once started (shared by concurrent first uses). */
  readonly links = new Map<string, Promise<Link>>();
  /** Client request ids (JSON) in flight → the tool and link serving them, for cancellation. */
  readonly inflight = new Map<string, Link>();
  /** Standalone streams (GET) to attach each newly started link to. */
  readonly streams = new Set<(link: Link) => void>();
  /** Standalone streams, to tell the client something of the gateway's own (the hub's tools changed). */
  readonly notices = new Set<(message: unknown) => void>();
  /** Aborted when the session is forgotten: its standalone stream ends with it. */
  readonly ended = new AbortController();
  logLevel: string | undefined;
  lastUsed = Date.now();

  constructor(key: string, user: string, id: string, initParams: Record<string, unknown>, protocolVersion: string) {
    this.key = key;
    this.user = user;
    this.id = id;
    this.initParams = initParams;
    this.protocolVersion = protocolVersion;
  }

  /** Links started so far. */
  async started(): Promise<Link[]> {
    const settled = await Promise.allSettled(this.links.values());
    return settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  }
}

export interface ConnectorSessionsOptions {
  sealer: SessionSealer;
  idleMs: number;
  /** Where sessions on shared revisions are counted. */
  shared: Pick<SharedSessions, "ended">;
  /** Sessions the table holds; 10,000. */
  max?: number;
}

export class ConnectorSessions {
  readonly #table = new Map<string, ConnectorSession>();
  readonly #o: ConnectorSessionsOptions;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: ConnectorSessionsOptions) {
    this.#o = options;
    // Idle sessions are ended on a clock, not only when someone initializes another.
    this.#sweeper = setInterval(() => this.sweepIdle(), Math.max(1000, Math.min(60_000, options.idleMs / 4)));
    this.#sweeper.unref();
  }

  get size(): number {
    return this.#table.size;
  }

  create(user: string, initParams: Record<string, unknown>, protocolVersion: string): ConnectorSession {
    this.#sweep(user);
    const key = randomBytes(16).toString("hex");
    const id = this.#o.sealer.seal({ user, tool: CONNECTOR, revision: "", instance: key, upstream: "" });
    const session = new ConnectorSession(key, user, id, initParams, protocolVersion);
    this.#table.set(key, session);
    return session;
  }

  /** The session an id names, for this person; anything else is "not found", never "forbidden". */
  open(id: string, user: string): ConnectorSession {
    const binding = this.#o.sealer.open(id);
    const session = binding && binding.tool === CONNECTOR && binding.user === user ? this.#table.get(binding.instance) : undefined;
    if (!session) throw new GatewayError("unknown_session", "No such session; initialize a new one");
    session.lastUsed = Date.now();
    return session;
  }

  /** Ends a session (the client's DELETE); resolves once the tool servers were told. */
  delete(session: ConnectorSession): Promise<void> {
    return this.#forget(session);
  }

  /**
   * Forgets sessions unused for the idle time: none with a request running or a stream open
   * (a client listening on GET is not idle).
   */
  sweepIdle(now = Date.now()): void {
    for (const s of this.#table.values()) {
      if (now - s.lastUsed > this.#o.idleMs && s.inflight.size === 0 && s.streams.size === 0) void this.#forget(s);
    }
  }

  /** A notification to every client listening on a standalone stream. */
  broadcast(message: unknown): void {
    for (const s of this.#table.values()) for (const notice of s.notices) notice(message);
  }

  /** Stops the idle clock (the gateway is closing). */
  close(): void {
    clearInterval(this.#sweeper);
  }

  /** Only ever called with a session in the table (each caller found it there this turn). */
  #forget(session: ConnectorSession): Promise<void> {
    this.#table.delete(session.key);
    session.ended.abort();
    return this.#end(session);
  }

  /** Ends each MCP session the client's session opened on a tool server (those still opening too). */
  async #end(session: ConnectorSession): Promise<void> {
    await Promise.allSettled(
      (await session.started()).map((link) => {
        if (link.session !== undefined && link.rec.user === EVERYONE) this.#o.shared.ended(link.rec.instance, link.session);
        return end(link.up, link.session);
      }),
    );
  }

  /**
   * Forgets idle sessions, this person's oldest beyond their share (so one person cannot push
   * everyone else's sessions out), and the oldest when the table is full.
   */
  #sweep(user: string): void {
    this.sweepIdle();
    const mine = [...this.#table.values()].filter((s) => s.user === user);
    while (mine.length >= PER_USER) void this.#forget(mine.shift()!);
    while (this.#table.size >= (this.#o.max ?? 10_000)) void this.#forget(this.#table.values().next().value!);
  }
}
