// The hub_gateway CLI's io, recorded: what it printed to stdout and stderr, line by line,
// with a fixed stdin and a stop that is already requested (a server command returns at once).
import type { CliIo } from "../../cli/hub_gateway.ts";

export type RecordedIo = CliIo & { out: (line: string) => void; lines: string[]; errors: string[] };

export function recordingIo(stdin = ""): RecordedIo {
  const lines: string[] = [];
  const errors: string[] = [];
  return {
    lines,
    errors,
    out: (l) => void lines.push(l),
    err: (l) => void errors.push(l),
    readStdin: async () => stdin,
    stopRequested: Promise.resolve("SIGTERM"),
  };
}
