// `--rappture tool.xml`: Rappture tools published on the app's server, or on a server of
// their own when there is no app. A tool.xml that cannot be published is one line (the
// file, the line, what is wrong), never a stack.
import { McpServer } from "../server.ts";
import { readToolXml } from "../rappture/tool-xml.ts";
import type { ServerLike } from "./app-loader.ts";

type Publishing = { kind: "ok"; server: ServerLike } | { kind: "error"; message: string };

/** What the app's server needs to take Rappture tools (a hubmcp older than them has no such method). */
interface TakesRappture {
  rappture(toolXml: string): unknown;
}

function takesRappture(server: ServerLike): server is ServerLike & TakesRappture {
  return typeof (server as Partial<TakesRappture>).rappture === "function";
}

/** The server named after its one tool, or `rappture-tools` for several. */
function ownServer(files: readonly string[]): McpServer {
  if (files.length !== 1) return new McpServer("rappture-tools");
  const tool = readToolXml(files[0]!);
  return new McpServer(tool.name, tool.version ? { version: tool.version } : {});
}

export function publishRappture(files: readonly string[], app: ServerLike | undefined): Publishing {
  if (files.length === 0 && app) return { kind: "ok", server: app };
  if (app && !takesRappture(app)) return { kind: "error", message: "this app's hubmcp has no Rappture support; update the hubmcp it imports" };
  try {
    const server = app ?? ownServer(files);
    for (const file of files) (server as ServerLike & TakesRappture).rappture(file);
    return { kind: "ok", server };
  } catch (err) {
    // Only our own coded errors say something fit to print (a bad tool.xml, a duplicate name).
    const code = (err as { code?: unknown }).code;
    if (typeof code === "string" && code.startsWith("HUBMCP_")) return { kind: "error", message: (err as Error).message };
    throw err;
  }
}
