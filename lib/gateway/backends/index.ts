// The backends, one per kind of revision (./contract.ts says what one is). Adding a kind is
// a file in this folder and one line here; the table's type fails to compile while a kind
// gateway.json can declare has no backend.
import { app } from "./app.ts";
import { command } from "./command.ts";
import type { Backend, LaunchRequest, RevisionKind, ToolBackend } from "./contract.ts";
import { rappture } from "./rappture.ts";
import { slurm } from "./slurm.ts";
import { stdio } from "./stdio.ts";
import { url } from "./url.ts";

export { launchFailure, ToolSessionLaunchError, type Backend, type LaunchRequest } from "./contract.ts";
export { launcherCommand, LEAN_SESSION_FLAGS } from "./start-mcp.ts";

const BACKENDS: { readonly [K in RevisionKind]: ToolBackend<K> } = { app, rappture, stdio, url, command, slurm };

/** Starts the tool server of `req.revision` with its kind's backend. */
export function launchBackend(req: LaunchRequest): Promise<Backend> {
  const backend = BACKENDS[req.revision.kind] as ToolBackend<RevisionKind>;
  return backend.start(req, req.revision as never);
}
