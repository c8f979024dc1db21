// What every change to the tool registry reports, by the CLI and the admin API alike: the
// admin API hands it to the gateway's audit trail, the CLI appends it to the file trail its
// `--config` names (`registry.change` lines). The registry's records keep `by` and `at` too.
import type { AuditEntry } from "../audit/entry.ts";
import type { RawTool } from "./records.ts";

export interface ToolAuditEntry {
  /** The account that made the change (`cli` for the command line on the host). */
  readonly who: string;
  readonly action: "add" | "update" | "remove" | "import" | "put";
  readonly tool: string;
  readonly revision?: string;
  /** The tool as registered before and after; undefined where there was none. */
  readonly before: RawTool | undefined;
  readonly after: RawTool | undefined;
}

/** The change as one audit line: who, what, and the tool's revisions and groups before and after. */
export function toolChangeLine(entry: ToolAuditEntry): AuditEntry {
  return {
    event: "registry.change",
    person: entry.who,
    tool: entry.tool,
    ...(entry.revision ? { revision: entry.revision } : {}),
    method: entry.action,
    outcome: "ok",
    before: outline(entry.before),
    after: outline(entry.after),
  };
}

/** A registered tool in brief: its revisions' names and kinds, its default and its groups; never paths, commands or env. */
function outline(tool: RawTool | undefined): string {
  if (tool === undefined) return "none";
  const revisions = typeof tool.revisions === "object" && tool.revisions !== null ? (tool.revisions as Record<string, Record<string, unknown>>) : {};
  const kinds = Object.entries(revisions).map(
    ([name, rev]) => `${name}:${Object.keys(rev ?? {}).find((k) => k !== "isolation" && k !== "runAs" && k !== "env") ?? "?"}`,
  );
  const groups = Array.isArray(tool.groups) ? (tool.groups as unknown[]).join(",") : "";
  return `revisions=${kinds.join(" ")}; default=${String(tool.defaultRevision ?? "default")}; groups=${groups}`;
}
