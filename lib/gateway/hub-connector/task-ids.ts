// How `/mcp` names a tool's task and job ids to its client: `{tool}/{id}`, so a later
// `tasks/*` or `hub_get_job_result` finds its tool from the id alone, with no table to keep.

export const prefixTask = (tool: string, taskId: string): string => `${tool}/${taskId}`;

export function unprefixTask(taskId: unknown): { tool: string; taskId: string } | null {
  if (typeof taskId !== "string") return null;
  const slash = taskId.indexOf("/");
  return slash < 1 ? null : { tool: taskId.slice(0, slash), taskId: taskId.slice(slash + 1) };
}
