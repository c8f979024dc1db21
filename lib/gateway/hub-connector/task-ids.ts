// How `/mcp` names a tool's task and job ids to its client: the relays' `<label>/<id>`
// (../../federation/ids.ts), a tool's label being its name, so a later `tasks/*` or
// `hub_get_job_result` finds its tool from the id alone.
import { unprefixTask as unprefix } from "../../federation/ids.ts";

export { prefixTask } from "../../federation/ids.ts";

export function unprefixTask(taskId: unknown): { tool: string; taskId: string } | null {
  const found = unprefix(taskId);
  return found && { tool: found.label, taskId: found.taskId };
}
