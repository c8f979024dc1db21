// The built-in `get_job_result` tool, for clients that cannot receive tasks; registered
// with the first async tool. A finished job is forgotten after its first poll.
import { defineTool, type RegisteredTool } from "../registry/tools.ts";
import type { AsyncStore } from "./store.ts";
import { jobStatus } from "./views.ts";

export const JOB_RESULT_TOOL = "get_job_result";

export function jobResultTool(store: AsyncStore): RegisteredTool {
  const poll = ({ job_id }: { job_id: string }): Record<string, unknown> => {
    const found = store.get(job_id);
    const run = found?.how.kind === "job" ? found : undefined;
    const status = jobStatus(job_id, run);
    if (run?.terminal) store.delete(run.id);
    return status;
  };
  return defineTool(
    poll,
    {
      name: JOB_RESULT_TOOL,
      description:
        "Check a background job started by a long-running tool. Returns its status (running, done, error, cancelled or not_found); " +
        "when done it carries the tool's result, when error the error text. Finished jobs can be read once.",
      inputSchema: {
        type: "object",
        properties: { job_id: { type: "string", minLength: 1, maxLength: 200, description: "The job_id the tool call returned" } },
        required: ["job_id"],
      },
      annotations: { title: "Get job result", readOnlyHint: false, openWorldHint: false },
      context: false,
    },
    "sync",
  );
}
