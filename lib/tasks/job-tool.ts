// The built-in `get_job_result` tool, for clients that cannot receive tasks; registered
// with the first async tool. A finished job is forgotten after its first poll. A client
// that declared task support but cannot poll tasks (MCP Inspector's CLI asks for a task,
// then has no `tasks/get`) may poll its task here too, from the session that owns it.
import { defineTool, type RegisteredTool, type ToolOptions, toolEntry } from "../registry/tools.ts";
import type { CallToolResult } from "../mcp/tool-result.ts";
import type { AsyncRun } from "./run.ts";
import type { AsyncStore } from "./store.ts";
import { JOB_RESULT_TOOL, jobStatus } from "./views.ts";

export { JOB_RESULT_TOOL };

/** Who polls: the session of the `tools/call`, none over REST. */
export interface PollScope {
  readonly sessionId: string | null;
}

/** A job, or a task of the polling session; any other run is "not found" (never another session's). */
function visible(run: AsyncRun | undefined, scope: PollScope | undefined): AsyncRun | undefined {
  if (run?.how.kind === "job") return run;
  const sessionId = scope?.sessionId ?? null;
  return run !== undefined && sessionId !== null && run.sessionId === sessionId ? run : undefined;
}

const OPTIONS = {
  name: JOB_RESULT_TOOL,
  description:
    "Check a background job started by a long-running tool. Returns its status (running, done, error, cancelled or not_found); " +
    "when done it carries the tool's result, when error the error text. Finished jobs can be read once. A task id works too.",
  inputSchema: {
    type: "object",
    properties: { job_id: { type: "string", minLength: 1, maxLength: 200, description: "The job_id (or taskId) the tool call returned" } },
    required: ["job_id"],
  },
  annotations: { title: "Get job result", readOnlyHint: false, openWorldHint: false },
  context: false,
} satisfies ToolOptions;

/** The poller's tools/list entry, as every server with an async tool lists it. */
export const JOB_RESULT_ENTRY: Readonly<Record<string, unknown>> = toolEntry(JOB_RESULT_TOOL, OPTIONS, "sync");

export function jobResultTool(store: AsyncStore): RegisteredTool {
  const poll = (job_id: string, scope: PollScope | undefined): unknown => {
    const run = visible(store.get(job_id), scope);
    const status = jobStatus(job_id, run);
    // A task stays until its TTL: the client may still read it through tasks/result.
    if (run?.terminal && run.how.kind === "job") store.delete(run.id);
    return status.status === "done" && run?.settled ? withProvenance(status, run.settled.result) : status;
  };
  const tool = defineTool(({ job_id }: { job_id: string }) => poll(job_id, undefined), OPTIONS, "sync");
  // Not context-bearing (REST may poll jobs), but `tools/call` passes the caller's session as the second argument.
  return { ...tool, call: (args, scope) => poll(args.job_id as string, scope as PollScope | undefined) };
}

/**
 * A finished job's answer keeps what its tool's result said beyond its value: the result's
 * `_meta` (where it came from: a Rappture run's tool, inputs, digest) and its content blocks
 * other than text (resource links to a run file, images), so a client that polls jobs
 * is not told less than one that receives the result at once.
 */
function withProvenance(status: Record<string, unknown>, result: CallToolResult): unknown {
  const blocks = result.content.filter((block) => block.type !== "text");
  if (result._meta === undefined && blocks.length === 0) return status;
  const out: CallToolResult = { content: [{ type: "text", text: JSON.stringify(status) }, ...blocks], isError: false, structuredContent: status };
  if (result._meta !== undefined) out._meta = result._meta;
  return out;
}
