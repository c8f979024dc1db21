// One job poller for the whole connector. Every tool server with an async tool lists its own
// `get_job_result`; exposed one per tool, a hub of 1,000 Rappture tools listed 2,001 tools.
// /mcp lists `hub_get_job_result` once instead: a job id a tool answers is given the tool's
// name as a prefix, `<tool>/<id>` (as task ids are, ./messages.ts), so a poll finds its tool
// without any table; the tools' messages name the one poller (their tool-refs are renamed
// to it, ../../federation/references.ts) and their polls answer the prefixed id again.
import { TOOL_REFS } from "../../mcp/tool-result.ts";
import { JOB_RESULT_TOOL } from "../../tasks/views.ts";
import { isRecord } from "../../util/guards.ts";
import type { Origin } from "../../federation/naming.ts";
import { prefixTask, unprefixTask } from "../../federation/ids.ts";

type Message = Record<string, unknown>;

export const JOBS_ORIGIN: Origin = { label: "hub", name: JOB_RESULT_TOOL };
export const JOBS_TOOL = "hub_get_job_result";
/** What the relay answers a poll to: its job ids are prefixed like a started job's. */
export const JOB_POLL = `tools/call ${JOB_RESULT_TOOL}`;

export const JOBS_DEFINITION = {
  name: JOBS_TOOL,
  title: "Get job result",
  description:
    "Check a background job started by a long-running tool of this hub. Returns its status (running, done, error, cancelled or not_found); " +
    "when done it carries the tool's result, when error the error text. Finished jobs can be read once. A task id works too.",
  inputSchema: {
    type: "object",
    properties: { job_id: { type: "string", minLength: 1, maxLength: 400, description: "The job_id (or taskId) the tool call returned" } },
    required: ["job_id"],
  },
  annotations: { readOnlyHint: false, openWorldHint: false },
} as const;

/** A tool's list entry that is its server's own job poller (listed with an async tool), not a tool of that name. */
export function isJobPoller(item: Message, list: readonly Message[]): boolean {
  return item.name === JOB_RESULT_TOOL && list.some((other) => isRecord(other.execution));
}

/** The tool and its own id behind a poll's job_id; null when it names no tool. */
export function routeJob(args: unknown): { tool: string; jobId: string } | null {
  const jobId = isRecord(args) ? args.job_id : undefined;
  const found = unprefixTask(jobId);
  return found && found.taskId !== "" ? { tool: found.label, jobId: found.taskId } : null;
}

/** The poller's answer for a job id that leads to no tool: not found, as any unknown id is. */
export function notFoundJob(args: unknown): Message {
  const given = isRecord(args) && typeof args.job_id === "string" ? args.job_id.slice(0, 400) : "";
  const answer = { status: "not_found", job_id: given };
  return { content: [{ type: "text", text: JSON.stringify(answer) }], structuredContent: answer };
}

/** A job id inside JSON text (a job handle, a poll's answer), prefixed; any other text as it is. */
function prefixedText(tool: string, text: string): string {
  if (!text.includes('"job_id"')) return text;
  try {
    const value: unknown = JSON.parse(text);
    return isRecord(value) && typeof value.job_id === "string" ? JSON.stringify({ ...value, job_id: prefixTask(tool, value.job_id) }) : text;
  } catch {
    return text;
  }
}

function prefixedBlocks(tool: string, result: Message): Message {
  if (!Array.isArray(result.content)) return result;
  const content = result.content.map((block: unknown) =>
    isRecord(block) && block.type === "text" && typeof block.text === "string" ? { ...block, text: prefixedText(tool, block.text) } : block,
  );
  return { ...result, content };
}

/** A started job's handle (its message names the poller, stated in its tool-refs): its id prefixed. */
export function exposeJobHandle(tool: string, result: Message): Message {
  const meta = result._meta;
  if (!isRecord(meta) || !Array.isArray(meta[TOOL_REFS]) || !meta[TOOL_REFS].includes(JOB_RESULT_TOOL)) return result;
  return prefixedBlocks(tool, result);
}

/** A poll's answer: its job id prefixed again, in its text and its structured content. */
export function exposeJobPoll(tool: string, result: Message): Message {
  const out = prefixedBlocks(tool, result);
  const structured = out.structuredContent;
  if (isRecord(structured) && typeof structured.job_id === "string") out.structuredContent = { ...structured, job_id: prefixTask(tool, structured.job_id) };
  return out;
}
