// How async runs outlive their process: a run as a plain record, and the small interface a
// store of records offers. Memory is the default (the AsyncStore's map is the only copy);
// ./state-dir.ts keeps them in a directory so a restarted tool server still answers.
import { isRecord } from "../util/guards.ts";
import { AsyncRun, cutOffOutcome, type ProtocolError, type RunKind, type RunStatus, type Settled } from "./run.ts";

/** One run as written to disk. `v` changes when the shape does; older shapes are dropped. */
export interface RunRecord {
  v: 1;
  id: string;
  seq: number;
  how: RunKind;
  sessionId: string | null;
  toolName: string;
  createdAt: number;
  updatedAt: number;
  finishedAt: number | null;
  ttlMs: number;
  pollIntervalMs: number;
  status: RunStatus;
  settled: Settled | null;
  handle: Record<string, unknown> | null;
  protocolError: ProtocolError | null;
}

/** Where records go as runs change. Calls are synchronous so a record is on disk before the change is answered. */
export interface RunPersistence {
  /** Writes the run's current record, replacing any earlier one. */
  save(record: RunRecord): void;
  remove(id: string): void;
  /** Every record held, in no particular order; unreadable ones are skipped (and dropped). */
  load(): RunRecord[];
}

export const memoryPersistence: RunPersistence = {
  save() {},
  remove() {},
  load: () => [],
};

export function recordOf(run: AsyncRun): RunRecord {
  return {
    v: 1,
    id: run.id,
    seq: run.seq,
    how: run.how,
    sessionId: run.sessionId,
    toolName: run.toolName,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    finishedAt: run.finishedAt,
    ttlMs: run.ttlMs,
    pollIntervalMs: run.pollIntervalMs,
    status: run.status,
    settled: run.settled,
    handle: run.handle,
    protocolError: run.protocolError,
  };
}

const STATUSES: ReadonlySet<unknown> = new Set(["working", "input_required", "completed", "failed", "cancelled"]);
const num = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

/** Records written before the stateless form existed named a 2026 task "seed" with no session. */
function kindOf(v: unknown, sessionId: unknown): RunKind | null {
  if (!isRecord(v)) return null;
  if (v.kind === "job") return { kind: "job" };
  if (v.kind === "task" && v.form === "seed" && sessionId === null) return { kind: "task", form: "stateless" };
  if (v.kind === "task" && (v.form === "seed" || v.form === "mcp" || v.form === "stateless")) return { kind: "task", form: v.form };
  return null;
}

/** A parsed file as a record, or null when it is not one (a torn or foreign file). */
export function parseRecord(v: unknown): RunRecord | null {
  if (!isRecord(v) || v.v !== 1 || typeof v.id !== "string" || typeof v.toolName !== "string") return null;
  const how = kindOf(v.how, v.sessionId);
  if (!how || !num(v.seq) || !num(v.createdAt) || !num(v.updatedAt) || !num(v.ttlMs) || !num(v.pollIntervalMs)) return null;
  if (!STATUSES.has(v.status) || (v.sessionId !== null && typeof v.sessionId !== "string")) return null;
  if (v.finishedAt !== null && !num(v.finishedAt)) return null;
  const settled = isRecord(v.settled) && isRecord(v.settled.result) ? (v.settled as unknown as Settled) : null;
  const error =
    isRecord(v.protocolError) && num(v.protocolError.code) && typeof v.protocolError.message === "string"
      ? (v.protocolError as unknown as ProtocolError)
      : null;
  return {
    v: 1,
    id: v.id,
    seq: v.seq,
    how,
    sessionId: v.sessionId as string | null,
    toolName: v.toolName,
    createdAt: v.createdAt,
    updatedAt: v.updatedAt,
    finishedAt: v.finishedAt as number | null,
    ttlMs: v.ttlMs,
    pollIntervalMs: v.pollIntervalMs,
    status: v.status as RunStatus,
    settled,
    handle: isRecord(v.handle) ? v.handle : null,
    protocolError: error,
  };
}

/**
 * The run a record describes after a restart. A run that was still going when its process
 * stopped did not finish and never will: it reads as failed, saying so, from `now` on.
 */
export function restoreRun(record: RunRecord, now: number, onChange: (run: AsyncRun) => void): AsyncRun {
  const live = record.finishedAt === null || record.status === "working" || record.status === "input_required";
  const init = {
    id: record.id,
    seq: record.seq,
    how: record.how,
    sessionId: record.sessionId,
    toolName: record.toolName,
    now: record.createdAt,
    ttlMs: record.ttlMs,
    pollIntervalMs: record.pollIntervalMs,
    onChange,
  };
  if (!live) {
    const restored = {
      status: record.status,
      updatedAt: record.updatedAt,
      finishedAt: record.finishedAt!,
      settled: record.settled,
      handle: record.handle,
      protocolError: record.protocolError,
    };
    return new AsyncRun({ ...init, restored });
  }
  const { settled, protocolError } = cutOffOutcome();
  return new AsyncRun({ ...init, restored: { status: "failed", updatedAt: now, finishedAt: now, settled, handle: record.handle, protocolError } });
}
