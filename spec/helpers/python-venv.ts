// A Python virtual environment holding packages from the machine's package index (pip as it is
// configured here), for specs that run an official Python client. Built once under
// $XDG_CACHE_HOME/hubmcp (else ~/.cache/hubmcp) and reused; a half-built one is never seen,
// since it is built beside its place and renamed into it.
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

export type PythonEnv = { python: string } | { missing: string };

function cacheRoot(env: NodeJS.ProcessEnv): string {
  return join(env.XDG_CACHE_HOME || join(homedir(), ".cache"), "hubmcp");
}

/** The venv's python, or what is missing (so the spec can say why it skipped). */
export async function pythonWith(name: string, packages: readonly string[], env: NodeJS.ProcessEnv = process.env): Promise<PythonEnv> {
  const root = cacheRoot(env);
  const dir = join(root, `python-${name}`);
  const python = join(dir, "bin", "python");
  if (existsSync(python)) return { python };
  const building = `${dir}.building-${process.pid}`;
  const need = `python3 with venv and pip, and ${packages.join(", ")} on the machine's package index`;
  try {
    mkdirSync(root, { recursive: true });
    rmSync(building, { recursive: true, force: true });
    await run("python3", ["-m", "venv", building], { timeout: 120_000 });
    // Index lookups that fail are not retried: an index this machine cannot reach fails at once.
    await run(join(building, "bin", "pip"), ["install", "--quiet", "--retries", "0", ...packages], { timeout: 540_000 });
    try {
      renameSync(building, dir);
    } catch {
      // Another run finished first: use its environment.
      rmSync(building, { recursive: true, force: true });
    }
    return existsSync(python) ? { python } : { missing: need };
  } catch {
    rmSync(building, { recursive: true, force: true });
    return { missing: need };
  }
}
