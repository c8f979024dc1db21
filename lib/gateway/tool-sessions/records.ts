// A tool session as the data dir records it, and what any process on the data dir may do with
// the records without running sessions itself (./tool-sessions.ts runs them). Records:
// `tool-sessions/<key>` (state and address), `tool-session-use/<key>` (last use, written by
// every replica), `weber-routes/<instance>` (the proxy path's key) and `tool-session-places/…`
// (the caps, see session-caps.ts).
import type { RecordStore } from "../contracts/interfaces.ts";

export interface ToolSessionRecord {
  state: "starting" | "ready" | "crashed";
  instance: string;
  user: string;
  tool: string;
  revision: string;
  /** The replica that owns the process. */
  owner: string;
  since: number;
  url?: string;
  cookie?: string;
  weberPrefix?: string;
  /** The owner's child process, for operators. */
  pid?: number;
  /** A `slurm` session's batch job, for operators and any replica. */
  jobId?: string;
}

export const SESSIONS = "tool-sessions";
export const USE = "tool-session-use";
export const WEBER = "weber-routes";

/** Records every routed request reads and may be remembered for a while: a session's route once it runs. */
export function isSteadyRoute(collection: string, value: unknown): boolean {
  return collection === WEBER || (collection === SESSIONS && (value as ToolSessionRecord).state === "ready");
}

/**
 * Forgets every tool session of a user (a removed account), from any process on the data
 * dir: their routes stop within the lookup cache bound, and the replica running each one
 * stops it at its next sweep. Answers how many there were.
 */
export async function forgetToolSessionsOf(store: RecordStore, user: string): Promise<number> {
  const theirs = (await store.list<ToolSessionRecord>(SESSIONS)).filter((r) => r.value.user === user);
  for (const { id, value } of theirs) {
    await store.delete(SESSIONS, id);
    await store.delete(WEBER, value.instance);
  }
  return theirs.length;
}

export function toolSessionKey(user: string, tool: string, revision: string): string {
  return `${user}\n${tool}\n${revision}`;
}

/** A person's own tool sessions, as the data dir has them (any replica's), oldest first. */
export async function toolSessionsOf(store: RecordStore, user: string): Promise<ToolSessionRecord[]> {
  const all = await store.list<ToolSessionRecord>(SESSIONS);
  return all
    .map((r) => r.value)
    .filter((rec) => rec.user === user && rec.state !== "crashed")
    .sort((a, b) => a.since - b.since);
}
