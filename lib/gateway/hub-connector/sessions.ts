// Sessions of /mcp clients (MCP 2025-11-25 and earlier). The Mcp-Session-Id is sealed by
// the gateway (../relay/session-seal.ts) and names the person it was minted for: another
// person's token naming it, or any per-tool route, gets "not found". The session's state
// (the client's initialize params, and per tool the tool session and the MCP session opened
// on it for this client) lives in the record store (./session-records.ts), so a client sent
// to another replica continues where it was: no affinity. What cannot travel stays with the
// replica that holds it: requests running, GET streams. A session forgotten for any reason
// (DELETE on any replica, idle, a person's or the table's bound) ends what it opened on the
// tool servers (DELETE there, and its place among the person's sessions on a shared
// revision given back): nothing the gateway opened for a client outlives the client's session.
import { randomBytes } from "node:crypto";
import type { RecordStore } from "../contracts/interfaces.ts";
import type { SessionSealer } from "../relay/session-seal.ts";
import { GatewayError } from "../contracts/respond.ts";
import type { Upstream } from "../relay/forward.ts";
import type { ToolSessionRecord } from "../tool-sessions/records.ts";
import { EVERYONE, type SharedSessions } from "../tool-sessions/isolation.ts";
import { end } from "../relay/upstream-mcp.ts";
import { CONNECTOR_SESSIONS, linkedSession, usedAt, withLink, type ConnectorSessionRecord, type StoredLink } from "./session-records.ts";
import { toolSessionKey } from "../tool-sessions/records.ts";
import { Links, type Link } from "./session-links.ts";

export type { Link };

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
  readonly links: Links;
  /** Client request ids (JSON) in flight on this replica → the link serving them, for cancellation. */
  readonly inflight = new Map<string, Link>();
  /** Standalone streams (GET) to attach each newly started link to. */
  readonly streams = new Set<(link: Link) => void>();
  /** Standalone streams, to tell the client something of the gateway's own (the hub's tools changed). */
  readonly notices = new Set<(message: unknown) => void>();
  /** Aborted when the session is forgotten: its standalone stream ends with it. */
  readonly ended = new AbortController();
  logLevel: string | undefined;
  lastUsed = Date.now();
  /** When this replica last wrote the session's use to the store. */
  written = 0;

  readonly #write: (s: ConnectorSession, tool: string, link: Link) => Promise<boolean>;

  constructor(key: string, id: string, rec: ConnectorSessionRecord, write: (s: ConnectorSession, tool: string, link: Link) => Promise<boolean>) {
    this.key = key;
    this.user = rec.user;
    this.id = id;
    this.initParams = rec.initParams;
    this.protocolVersion = rec.protocolVersion;
    this.#write = write;
    this.links = new Links((tool, link) => void write(this, tool, link));
  }

  /**
   * A link just opened, written down before the request that opened it is answered: the
   * client's next request may reach another replica, which must find it. A session that ended
   * meanwhile has the link ended on the tool server, and the request gets "not found".
   */
  async keep(tool: string, link: Link): Promise<Link> {
    this.links.kept.add(link);
    if (!(await this.#write(this, tool, link))) throw new GatewayError("unknown_session", "No such session; initialize a new one");
    return link;
  }

  /** Links started so far. */
  async started(): Promise<Link[]> {
    const settled = await Promise.allSettled(this.links.values());
    return settled.flatMap((s) => (s.status === "fulfilled" ? [s.value] : []));
  }
}

export interface ConnectorSessionsOptions {
  sealer: SessionSealer;
  /** Shared by every replica: where sessions live. */
  store: RecordStore;
  idleMs: number;
  /** Where sessions on shared revisions are counted. */
  shared: Pick<SharedSessions, "ended">;
  /** Where a tool session's requests go. */
  upstream(rec: ToolSessionRecord): Upstream;
  /** Sessions the store holds; 10,000. */
  max?: number;
}

export class ConnectorSessions {
  /** Sessions this replica served lately (their links, streams and requests running here). */
  readonly #table = new Map<string, ConnectorSession>();
  readonly #o: ConnectorSessionsOptions;
  readonly #sweeper: NodeJS.Timeout;

  constructor(options: ConnectorSessionsOptions) {
    this.#o = options;
    // Idle sessions are ended on a clock, not only when someone initializes another.
    this.#sweeper = setInterval(() => void this.sweepIdle().catch(() => undefined), this.#tick);
    this.#sweeper.unref();
  }

  get #tick(): number {
    return Math.max(1000, Math.min(60_000, this.#o.idleMs / 4));
  }

  /** Sessions this replica holds in memory. */
  get size(): number {
    return this.#table.size;
  }

  async create(user: string, initParams: Record<string, unknown>, protocolVersion: string): Promise<ConnectorSession> {
    await this.#bound(user);
    const key = randomBytes(16).toString("hex");
    const id = this.#o.sealer.seal({ user, tool: CONNECTOR, revision: "", instance: key, upstream: "" });
    const now = Date.now();
    const rec: ConnectorSessionRecord = { user, initParams, protocolVersion, created: now, used: now, links: {} };
    await this.#o.store.put(CONNECTOR_SESSIONS, key, rec);
    const session = this.#remember(key, id, rec);
    session.written = now;
    return session;
  }

  /** The session an id names, for this person, from whichever replica opened it; anything else is "not found", never "forbidden". */
  async open(id: string, user: string): Promise<ConnectorSession> {
    const binding = this.#o.sealer.open(id);
    if (!binding || binding.tool !== CONNECTOR || binding.user !== user) throw unknown();
    const key = binding.instance;
    const rec = await this.#o.store.get<ConnectorSessionRecord>(CONNECTOR_SESSIONS, key);
    const held = this.#table.get(key);
    if (!rec || rec.user !== user) {
      // Ended on another replica: what this one holds of it ends too.
      if (held) this.#drop(held);
      throw unknown();
    }
    const session = held ?? this.#remember(key, id, rec);
    await this.#adopt(session, rec);
    session.lastUsed = Date.now();
    this.#used(session);
    return session;
  }

  /** Ends a session (the client's DELETE, on any replica); resolves once the tool servers were told. */
  async delete(session: ConnectorSession): Promise<void> {
    const rec = await this.#o.store.get<ConnectorSessionRecord>(CONNECTOR_SESSIONS, session.key);
    await this.#forget(session.key, rec);
  }

  /**
   * Forgets sessions no replica used for the idle time. A session with a request running or
   * a stream open here is in use: this replica writes its use down first, so no replica's
   * sweep takes it for idle.
   */
  async sweepIdle(now = Date.now()): Promise<void> {
    for (const s of this.#table.values()) if (s.inflight.size > 0 || s.streams.size > 0) this.#used(s, now, true);
    const all = await this.#o.store.list<ConnectorSessionRecord>(CONNECTOR_SESSIONS);
    const live = new Set(all.map((r) => r.id));
    // Ended elsewhere: dropped here too (their streams end).
    for (const s of this.#table.values()) if (!live.has(s.key)) this.#drop(s);
    for (const { id, value } of all) {
      const held = this.#table.get(id);
      // Tools the client started through other replicas reach the GET stream it holds here.
      if (held?.streams.size) await this.#adopt(held, value);
      const used = Math.max(value.used, held?.lastUsed ?? 0);
      if (now - used > this.#o.idleMs && !held?.inflight.size && !held?.streams.size) await this.#forget(id, value);
    }
  }

  /** A notification to every client listening on a standalone stream of this replica. */
  broadcast(message: unknown): void {
    for (const s of this.#table.values()) for (const notice of s.notices) notice(message);
  }

  /** Stops the idle clock (the gateway is closing). */
  close(): void {
    clearInterval(this.#sweeper);
  }

  #remember(key: string, id: string, rec: ConnectorSessionRecord): ConnectorSession {
    const session = new ConnectorSession(key, id, rec, (s, tool, link) => this.#store(s, tool, link));
    this.#table.set(key, session);
    return session;
  }

  /** Links another replica started (or restarted) since this one last looked are taken from the record. */
  async #adopt(session: ConnectorSession, rec: ConnectorSessionRecord): Promise<void> {
    for (const [tool, stored] of Object.entries(rec.links)) {
      if (session.links.starting(tool)) continue;
      const mine = session.links.settled(tool);
      if (mine && mine.rec.instance === stored.instance && mine.session === stored.session) continue;
      const tsr = await linkedSession(this.#o.store, stored);
      if (tsr && session.links.settled(tool) === mine && !session.links.starting(tool)) {
        const link: Link = { tool, rec: tsr, up: this.#o.upstream(tsr), session: stored.session };
        session.links.adopt(tool, link);
        // A GET stream held here hears that tool from now on too.
        for (const attach of session.streams) attach(link);
      }
    }
  }

  /** A link this replica started: written down for the others; a session ended meanwhile ends it on the tool server (false). */
  async #store(session: ConnectorSession, tool: string, link: Link): Promise<boolean> {
    const stored: StoredLink = {
      key: toolSessionKey(link.rec.user, link.rec.tool, link.rec.revision),
      instance: link.rec.instance,
      ...(link.session !== undefined ? { session: link.session } : {}),
    };
    const written = await this.#o.store.update(CONNECTOR_SESSIONS, session.key, withLink(tool, stored)).catch(() => null);
    if (written !== undefined) return true;
    this.#drop(session);
    await this.#end([link]);
    return false;
  }

  /** Writes the session's use down, at most every quarter of the idle time (or now, when `force`d). */
  #used(session: ConnectorSession, now = Date.now(), force = false): void {
    if (!force && now - session.written < this.#tick) return;
    session.written = now;
    void this.#o.store.update(CONNECTOR_SESSIONS, session.key, usedAt(now)).catch(() => undefined);
  }

  /** Only what this replica holds: the session's streams end with it. */
  #drop(session: ConnectorSession): void {
    if (this.#table.get(session.key) === session) this.#table.delete(session.key);
    session.ended.abort();
  }

  /** Deletes the record, then ends each MCP session it names on a tool server (and those this replica is still opening). */
  async #forget(key: string, rec: ConnectorSessionRecord | undefined): Promise<void> {
    await this.#o.store.delete(CONNECTOR_SESSIONS, key);
    const held = this.#table.get(key);
    if (held) this.#drop(held);
    const links = new Map<string, Link>();
    for (const link of held ? await held.started() : []) links.set(link.tool, link);
    for (const [tool, stored] of Object.entries(rec?.links ?? {})) {
      const known = links.get(tool);
      if (known?.rec.instance === stored.instance && known.session === stored.session) continue;
      const tsr = await linkedSession(this.#o.store, stored).catch(() => undefined);
      if (tsr) links.set(`${tool}\n${stored.session}`, { tool, rec: tsr, up: this.#o.upstream(tsr), session: stored.session });
    }
    await this.#end([...links.values()]);
  }

  async #end(links: Link[]): Promise<void> {
    await Promise.allSettled(
      links.map((link) => {
        if (link.session !== undefined && link.rec.user === EVERYONE) this.#o.shared.ended(link.rec.instance, link.session);
        return end(link.up, link.session);
      }),
    );
  }

  /**
   * Forgets this person's oldest sessions beyond their share (so one person cannot push
   * everyone else's sessions out), and the oldest of all when the store holds the most. Idle
   * ones are left to the clock: listing every session twice per initialize costs a replica
   * more than the few idle ones counted here until the next tick.
   */
  async #bound(user: string): Promise<void> {
    const all = (await this.#o.store.list<ConnectorSessionRecord>(CONNECTOR_SESSIONS)).sort((a, b) => a.value.created - b.value.created);
    const mine = all.filter((r) => r.value.user === user);
    const gone = new Set<string>();
    while (mine.length >= PER_USER) {
      const oldest = mine.shift()!;
      gone.add(oldest.id);
      await this.#forget(oldest.id, oldest.value);
    }
    const rest = all.filter((r) => !gone.has(r.id));
    while (rest.length >= (this.#o.max ?? 10_000)) {
      const oldest = rest.shift()!;
      await this.#forget(oldest.id, oldest.value);
    }
  }
}

function unknown(): GatewayError {
  return new GatewayError("unknown_session", "No such session; initialize a new one");
}
