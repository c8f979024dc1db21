// How a change made from the host's command line reaches the audit trail: when `--config`
// names a file trail, one line appended to its current file, as the running gateway's own
// lines are (a rotation by the gateway leaves it in one file or the next). The change is
// made either way; a trail that cannot be written costs one warning, never the change.
import { appendFileSync } from "node:fs";
import { join } from "node:path";
import { auditLine, type AuditEntry } from "../audit/entry.ts";
import { CURRENT } from "../audit/files.ts";
import type { GatewayConfig } from "../config/gateway-config.ts";
import { NAME, type CliIo } from "./io.ts";

/** Who the records and the audit trail name for a change from the host's command line: its uid. */
export function whoAmI(): string {
  return `cli:uid=${process.getuid?.() ?? "-"}`;
}

/** Appends one line to the file trail the config names; undefined when it names none. */
export function cliTrail(io: CliIo, config: GatewayConfig | undefined): ((entry: AuditEntry) => void) | undefined {
  const file = config?.audit.sink === "file" && config.audit.dir ? join(config.audit.dir, CURRENT) : undefined;
  if (file === undefined) return undefined;
  return (entry) => {
    try {
      appendFileSync(file, auditLine(entry), { mode: 0o600 });
    } catch (err) {
      io.err(`${NAME}: the change is made, but the audit trail could not be written (${(err as NodeJS.ErrnoException).code ?? "error"})`);
    }
  };
}
