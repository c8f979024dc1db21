// The tasks extension (`io.modelcontextprotocol/tasks`) as a 2026-07-28 client sees it:
// gating on the client's declared extension, the flat CreateTaskResult, the DetailedTask of
// `tasks/get` with the result or error inlined, and the empty acks of update and cancel.
// Pure views of a plain snapshot, so any run store can feed them.
import { invalidParams, missingClientCapability, type CapabilityMap, type StatelessErrorBody } from "./errors.ts";
import { ErrorCode } from "../../util/errors.ts";
import type { InputRequest } from "./input-required.ts";
import { isRecord } from "../../util/guards.ts";
import { EXTENSION, META } from "../extension-ids.ts";

export type TaskStatus = "working" | "input_required" | "completed" | "failed" | "cancelled";

/** A run as the views need it; times are epoch milliseconds. */
export interface TaskSnapshot {
  taskId: string;
  status: TaskStatus;
  createdAt: number;
  updatedAt: number;
  ttlMs: number;
  pollIntervalMs: number;
  statusMessage?: string;
  /** The tool result, once completed (a tool error is a completed task with `isError`). */
  result?: Record<string, unknown>;
  /** A protocol-level failure, once failed. */
  error?: { code: number; message: string; data?: unknown };
  /** Questions still unanswered while `input_required`. */
  inputRequests?: Record<string, InputRequest>;
  /** The task's `_meta` (e.g. the durable handle its tool attached). */
  meta?: Record<string, unknown>;
}

/** How a tool takes part: never a task, a task when the client can take one, or only as a task. */
export type TaskSupport = "forbidden" | "optional" | "required";

/** Whether this request's client declared the extension (per request: there is no session). */
export function tasksNegotiated(caps: CapabilityMap): boolean {
  const extensions = caps.extensions;
  return isRecord(extensions) && isRecord(extensions[EXTENSION.tasks]);
}

export const TASKS_REQUIRED: CapabilityMap = { extensions: { [EXTENSION.tasks]: {} } };

/**
 * How a `tools/call` is served: as a task, inline, or refused with -32021 when the tool only
 * runs as a task and the client cannot take one. A legacy `task` param changes nothing:
 * the tool's registration decides.
 */
export function taskDispatch(support: TaskSupport, caps: CapabilityMap): { kind: "task" } | { kind: "inline" } | { kind: "refuse"; error: StatelessErrorBody } {
  const negotiated = tasksNegotiated(caps);
  if (support === "required" && !negotiated) return { kind: "refuse", error: missingClientCapability(TASKS_REQUIRED) };
  return support !== "forbidden" && negotiated ? { kind: "task" } : { kind: "inline" };
}

/** tasks/get, tasks/update and tasks/cancel need the extension declared on the request itself. */
export function checkTasksMethod(caps: CapabilityMap): StatelessErrorBody | null {
  return tasksNegotiated(caps) ? null : missingClientCapability(TASKS_REQUIRED);
}

export const unknownTask = (): StatelessErrorBody => invalidParams("Unknown taskId");

const iso = (ms: number): string => new Date(ms).toISOString();
const wholeMs = (ms: number): number => Math.max(0, Math.round(ms));

function taskFields(t: TaskSnapshot): Record<string, unknown> {
  const fields: Record<string, unknown> = {
    taskId: t.taskId,
    status: t.status,
    createdAt: iso(t.createdAt),
    lastUpdatedAt: iso(t.updatedAt),
    ttlMs: wholeMs(t.ttlMs),
    pollIntervalMs: wholeMs(t.pollIntervalMs),
  };
  if (t.statusMessage !== undefined) fields.statusMessage = t.statusMessage;
  if (t.meta !== undefined) fields._meta = t.meta;
  return fields;
}

/** The `tools/call` answer that creates a task: flat Result & Task, nothing nested, no requestState. */
export function createTaskResult(t: TaskSnapshot): Record<string, unknown> {
  return { resultType: "task", ...taskFields(t) };
}

/** Strips what the extension forbids on an inlined result: the v1 related-task `_meta` key. */
function inlineResult(result: Record<string, unknown>): Record<string, unknown> {
  const meta = result._meta;
  if (!isRecord(meta) || !(META.relatedTask in meta)) return result;
  const { [META.relatedTask]: _dropped, ...rest } = meta;
  const out = { ...result };
  if (Object.keys(rest).length > 0) out._meta = rest;
  else delete out._meta;
  return out;
}

/** `tasks/get`: the task, plus its result when completed, its error when failed, its questions when waiting. */
export function detailedTask(t: TaskSnapshot): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: "complete", ...taskFields(t) };
  if (t.status === "completed" && t.result) out.result = inlineResult(t.result);
  if (t.status === "failed") out.error = t.error ?? { code: ErrorCode.InternalError, message: "Task failed" };
  if (t.status === "input_required" && t.inputRequests) out.inputRequests = { ...t.inputRequests };
  return out;
}

/** `tasks/update` and `tasks/cancel` answer with an empty ack; the new state shows on the next get. */
export const taskAck = (): Record<string, unknown> => ({ resultType: "complete" });

/** The optional `notifications/tasks` params for a listen stream. */
export function taskNotification(t: TaskSnapshot): Record<string, unknown> {
  const params: Record<string, unknown> = { taskId: t.taskId, status: t.status };
  if (t.status === "completed" && t.result) params.result = inlineResult(t.result);
  if (t.status === "failed" && t.error) params.error = t.error;
  return params;
}
