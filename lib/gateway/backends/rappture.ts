// `rappture`: a Rappture tool.xml served by start_mcp --rappture, started as an `app` is.
import { startServed } from "./app.ts";
import type { ToolBackend } from "./contract.ts";

export const rappture: ToolBackend<"rappture"> = { kind: "rappture", start: startServed };
