// Sessions of /mcp clients (MCP 2025-11-25 and earlier). The Mcp-Session-Id is sealed by
// the gateway (../session-seal.ts) and names the person it was minted for: another
// person's token naming it, or any per-tool route, gets "not found". The session's state
// (the client's initialize params, and per tool the tool session and the MCP session opened
// on it for this client) lives in this replica's memory: a client sent to another replica
// gets 404 and initializes again, as MCP provides for.
import { randomBytes } from "node:crypto";
import type { SessionSealer } from "../session-seal.ts";
import { GatewayError } from "../respond.ts";
import type { Upstream } from "../forward.ts";
import type { ToolSessionRecord } from "../tool-sessions.ts";

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

export class ConnectorSessions {
  readonly #table = new Map<string, ConnectorSession>();
  readonly #sealer: SessionSealer;
  readonly #idleMs: number;
  readonly #max: number;

  constructor(sealer: SessionSealer, idleMs: number, max = 10_000) {
    this.#sealer = sealer;
    this.#idleMs = idleMs;
    this.#max = max;
  }

  get size(): number {
    return this.#table.size;
  }

  create(user: string, initParams: Record<string, unknown>, protocolVersion: string): ConnectorSession {
    this.#sweep(user);
    const key = randomBytes(16).toString("hex");
    const id = this.#sealer.seal({ user, tool: CONNECTOR, revision: "", instance: key, upstream: "" });
    const session = new ConnectorSession(key, user, id, initParams, protocolVersion);
    this.#table.set(key, session);
    return session;
  }

  /** The session an id names, for this person; anything else is "not found", never "forbidden". */
  open(id: string, user: string): ConnectorSession {
    const binding = this.#sealer.open(id);
    const session = binding && binding.tool === CONNECTOR && binding.user === user ? this.#table.get(binding.instance) : undefined;
    if (!session) throw new GatewayError("unknown_session", "No such session; initialize a new one");
    session.lastUsed = Date.now();
    return session;
  }

  delete(session: ConnectorSession): void {
    this.#table.delete(session.key);
  }

  /**
   * Forgets idle sessions, this person's oldest beyond their share (so one person cannot push
   * everyone else's sessions out), and the oldest when the table is full.
   */
  #sweep(user: string): void {
    const now = Date.now();
    const mine: string[] = [];
    for (const [key, s] of this.#table) {
      if (now - s.lastUsed > this.#idleMs) this.#table.delete(key);
      else if (s.user === user) mine.push(key);
    }
    while (mine.length >= PER_USER) this.#table.delete(mine.shift()!);
    while (this.#table.size >= this.#max) this.#table.delete(this.#table.keys().next().value!);
  }
}
