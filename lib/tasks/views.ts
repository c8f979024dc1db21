// How a run is reported, in its four wire forms: as a job (polled with get_job_result), as a
// seed-form task, as an MCP 2025-11-25 task (basic/utilities/tasks "Data Types"), or as a
// task of the 2026-07-28 tasks extension. Pure functions of a run's fields, so every method
// (and every form) answers from the same state.
import type { TaskSnapshot } from "../mcp/stateless/tasks.ts";
import { errorResult, resultText, toolRefsMeta, type CallToolResult } from "../mcp/tool-result.ts";
import { STATUS_MESSAGES, type AsyncRun } from "./run.ts";
import { META } from "../mcp/extension-ids.ts";
import { ErrorCode } from "../util/errors.ts";

/** The built-in poller's name (./job-tool.ts), which a job's message tells the model to call. */
export const JOB_RESULT_TOOL = "get_job_result";
/** The `_meta` key under which a task carries the durable handle its tool attached (ctx.setTaskMetadata). */
export const HANDLE_META = "io.hubmcp/handle";

/** `{ _meta: { "io.hubmcp/handle": … } }` when the run has a handle, else nothing. */
export function handleMeta(run: AsyncRun): { _meta?: Record<string, unknown> } {
  return run.handle ? { _meta: { [HANDLE_META]: run.handle } } : {};
}

const JOB_STATUS = {
  working: "running",
  input_required: "running",
  completed: "done",
  failed: "error",
  cancelled: "cancelled",
} as const;

const iso = (ms: number): string => new Date(ms).toISOString();

function failureText(run: AsyncRun): string {
  return (run.settled && resultText(run.settled.result)) || "Tool failed";
}

/**
 * The immediate `tools/call` answer to an older client: the job handle as JSON text. A call
 * that asked for progress is told it gets none: its request is answered here, and a progress
 * token lives only as long as its request (MCP basic/utilities/progress).
 */
export function jobStarted(run: AsyncRun, progressAsked = false): CallToolResult {
  const noProgress = progressAsked ? " No progress is reported for a background job: this answer ends the request its progressToken belonged to." : "";
  const handle = {
    status: "running",
    job_id: run.id,
    message: `Started \`${run.toolName}\` in the background. Call \`${JOB_RESULT_TOOL}\` with this job_id until its status is done, error or cancelled.${noProgress}`,
  };
  // The names are stated, so a relay that renames tools renames them in the message too.
  return { content: [{ type: "text", text: JSON.stringify(handle) }], isError: false, _meta: toolRefsMeta([run.toolName, JOB_RESULT_TOOL]) };
}

/** What `get_job_result` answers for `jobId`; `run` is undefined when there is no such job. */
export function jobStatus(jobId: string, run: AsyncRun | undefined): Record<string, unknown> {
  if (!run) return { status: "not_found", job_id: jobId };
  const status = JOB_STATUS[run.status];
  const handle = run.handle ? { handle: run.handle } : {};
  if (status === "done") return { status, job_id: run.id, result: run.settled?.value ?? null, ...handle };
  if (status === "error") return { status, job_id: run.id, error: failureText(run), ...handle };
  return { status, job_id: run.id, ...handle };
}

/** Seed-form creation response: exactly these fields. */
export function seedCreated(run: AsyncRun): Record<string, unknown> {
  return {
    resultType: "task",
    taskId: run.id,
    status: "working",
    createdAt: iso(run.createdAt),
    lastUpdatedAt: iso(run.createdAt),
    ttlMs: run.ttlMs,
    pollIntervalMs: run.pollIntervalMs,
  };
}

/** Seed-form `tasks/get`: the call result once completed, the error once failed, a status message otherwise. */
export function seedTask(run: AsyncRun): Record<string, unknown> {
  const out: Record<string, unknown> = { resultType: "complete", taskId: run.id, status: run.status };
  if (run.status === "completed" && run.settled) out.result = run.settled.result;
  else if (run.status === "failed") out.error = { code: ErrorCode.InternalError, message: failureText(run) };
  else out.statusMessage = STATUS_MESSAGES[run.status];
  return { ...out, ...handleMeta(run) };
}

/** The MCP 2025-11-25 Task object; `fresh` is the creation answer (the run as it started). */
export function mcpTask(run: AsyncRun, fresh = false): Record<string, unknown> {
  return {
    taskId: run.id,
    status: fresh ? "working" : run.status,
    statusMessage: !fresh && run.status === "failed" ? failureText(run) : STATUS_MESSAGES[fresh ? "working" : run.status],
    createdAt: iso(run.createdAt),
    lastUpdatedAt: iso(fresh ? run.createdAt : run.updatedAt),
    ttl: run.ttlMs,
    pollInterval: run.pollIntervalMs,
    ...(fresh ? {} : handleMeta(run)),
  };
}

/** `tasks/result` of a terminal run: what `tools/call` would have returned, tagged with its task. */
export function taskResult(run: AsyncRun): CallToolResult {
  const base = run.status === "cancelled" || !run.settled ? errorResult("The task was cancelled") : run.settled.result;
  return { ...base, _meta: { ...base._meta, [META.relatedTask]: { taskId: run.id } } };
}

/**
 * The run as the 2026 tasks extension reports it (mcp/stateless/tasks.ts turns this into the wire
 * objects): a tool error is a completed task, a protocol error a failed one carrying it; a
 * waiting task lists its questions.
 */
export function statelessTask(run: AsyncRun): TaskSnapshot {
  const error = run.protocolError ?? undefined;
  const status = run.status === "failed" && !error ? "completed" : run.status;
  const snap: TaskSnapshot = {
    taskId: run.id,
    status,
    createdAt: run.createdAt,
    updatedAt: run.updatedAt,
    ttlMs: run.ttlMs,
    pollIntervalMs: run.pollIntervalMs,
  };
  if (status === "completed" && run.settled) snap.result = run.settled.result as unknown as Record<string, unknown>;
  if (status === "failed" && error) snap.error = error;
  if (status === "input_required") snap.inputRequests = run.inputs?.pending() ?? {};
  const { _meta } = handleMeta(run);
  if (_meta) snap.meta = _meta;
  return snap;
}
