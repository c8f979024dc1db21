// `url`: a tool server already running somewhere; nothing to start, nothing to stop.
import { NEVER, type ToolBackend } from "./contract.ts";

export const url: ToolBackend<"url"> = {
  kind: "url",
  start: async (_req, revision) => ({ url: revision.url, exited: NEVER, stop: async () => {} }),
};
