// Where every change to the tool registry is reported, by the CLI and the admin API alike:
// the audit trail (issue 36) connects here. Until it does, a change is reported nowhere else
// than in the registry's own records (`by`, `at`).
import type { RecordStore } from "../contracts.ts";
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

export async function auditToolChange(_store: RecordStore, _entry: ToolAuditEntry): Promise<void> {}
