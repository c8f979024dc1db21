// A /mcp session as the record store keeps it, so any replica continues it (no affinity):
// the client's initialize params and, per tool, which tool session its MCP session lives on.
// Record: `connector-sessions/<key>`, where <key> is the random part of the sealed id.
import type { RecordStore } from "../contracts/interfaces.ts";
import { SESSIONS, type ToolSessionRecord } from "../tool-sessions/records.ts";

export const CONNECTOR_SESSIONS = "connector-sessions";

/** One tool as the session uses it: the tool session (its record's key and instance) and the MCP session opened there. */
export interface StoredLink {
  /** The tool session's record key (tool-sessions/<key>). */
  readonly key: string;
  readonly instance: string;
  /** The tool server's Mcp-Session-Id; absent for a server that keeps no sessions. */
  readonly session?: string;
}

export interface ConnectorSessionRecord {
  readonly user: string;
  readonly initParams: Record<string, unknown>;
  readonly protocolVersion: string;
  readonly created: number;
  /** Last use any replica wrote down (at most every quarter of the idle time). */
  readonly used: number;
  readonly links: Readonly<Record<string, StoredLink>>;
}

/** The tool session a stored link names, if it still runs as the same instance. */
export async function linkedSession(store: RecordStore, link: StoredLink): Promise<ToolSessionRecord | undefined> {
  const rec = await store.get<ToolSessionRecord>(SESSIONS, link.key);
  return rec && rec.state === "ready" && rec.instance === link.instance && rec.url ? rec : undefined;
}

/** The record with `tool`'s link set; undefined (nothing written) when the session is gone. */
export function withLink(tool: string, link: StoredLink): (current: ConnectorSessionRecord | undefined) => ConnectorSessionRecord | undefined {
  return (current) => (current ? { ...current, links: { ...current.links, [tool]: link } } : undefined);
}

/** The record marked used at `now`; undefined when the session is gone. */
export function usedAt(now: number): (current: ConnectorSessionRecord | undefined) => ConnectorSessionRecord | undefined {
  return (current) => (current && current.used < now ? { ...current, used: now } : undefined);
}
