// The one sentence a user reads for each way a tool can fail between the bridge and the
// gateway (classified by the MCP client, ../federation/client-failure.ts). Messages name the
// tool and HUB_API but never the token or any arguments.
import type { ClientFailure } from "../federation/client-failure.ts";

/** The sentence shown to the user (in an isError result, an error, and on stderr). */
export function describeFailure(failure: ClientFailure, tool: string, api: string, attempts = 1): string {
  switch (failure.kind) {
    case "unauthorized":
      return `HUB_TOKEN was refused by ${api}`;
    case "forbidden":
      return failure.groups.length > 0
        ? `Access to tool ${tool} was denied: it requires membership in group ${failure.groups.join(" or ")}`
        : `Access to tool ${tool} was denied by ${api}`;
    case "session-gone":
      return `Tool ${tool} lost its session on ${api} and could not start a new one`;
    case "not-found":
      return `Tool ${tool} is not available on ${api} (${failure.detail})`;
    case "unavailable":
      return `Tool ${tool} is unavailable at ${api} (${failure.detail})${attempts > 1 ? `; gave up after ${attempts} attempts` : ""}`;
    case "broken":
      return `Tool ${tool} stopped answering mid-reply (${failure.detail})`;
    case "http":
      return `Tool ${tool} failed at ${api}: HTTP ${failure.status}${failure.detail ? ` (${failure.detail})` : ""}`;
  }
}
