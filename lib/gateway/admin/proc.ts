// What /proc says about a tool session's process: CPU seconds used and resident memory.
// Only for processes on this machine (a Slurm job runs elsewhere); unknown is undefined.
import { readFile } from "node:fs/promises";

/** Clock ticks per second of /proc/PID/stat's times: 100 on every Linux build that matters. */
const TICKS = 100;

export interface ProcessUse {
  cpuSeconds: number;
  rssBytes: number;
}

export async function processUse(pid: number | undefined): Promise<ProcessUse | undefined> {
  if (pid === undefined || !Number.isInteger(pid) || pid <= 0) return undefined;
  try {
    const [stat, status] = await Promise.all([readFile(`/proc/${pid}/stat`, "utf8"), readFile(`/proc/${pid}/status`, "utf8")]);
    // The command name (field 2) may hold spaces and parentheses: fields count from its last ')'.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const ticks = Number(fields[11]) + Number(fields[12]);
    const rss = /^VmRSS:\s+(\d+) kB$/m.exec(status);
    return { cpuSeconds: ticks / TICKS, rssBytes: rss ? Number(rss[1]) * 1024 : 0 };
  } catch {
    return undefined;
  }
}
