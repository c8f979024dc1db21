// Finding the hub's external reverse proxy (wrwroxy) through the `use` command, and the
// command that starts it (docs/decisions.md, "Hub sessions").
import { capture } from "./exec.ts";

/** "0.10.2" > "0.9": numeric segments compared left to right. */
export function compareVersions(a: string, b: string): number {
  const pa = a
    .split(/[^0-9]+/)
    .filter(Boolean)
    .map(Number);
  const pb = b
    .split(/[^0-9]+/)
    .filter(Boolean)
    .map(Number);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? -1) - (pb[i] ?? -1);
    if (d !== 0) return d;
  }
  return a.localeCompare(b);
}

/** The newest `<name>-<version>:` token in `use`'s listing, e.g. "wrwroxy-0.6". */
export function newestPackage(listing: string, name: string): string | null {
  const pattern = new RegExp(`(?:^|[\\s,])(${name}-[0-9][\\w.+-]*):`, "g");
  let best: string | null = null;
  for (const m of listing.matchAll(pattern)) {
    const token = m[1]!;
    if (best === null || compareVersions(token.slice(name.length + 1), best.slice(name.length + 1)) > 0) best = token;
  }
  return best;
}

export interface ProxyPorts {
  listenPort: number;
  forwardPort: number;
}

/** The shell command for `bash -lc`; the package token is checked so it cannot carry shell syntax. */
export function externalProxyCommand(pkg: string, ports: ProxyPorts, debug: boolean): string {
  if (!/^[\w.+-]+$/.test(pkg)) throw new TypeError("Reverse proxy package name has unexpected characters");
  const args = [
    "--listenHost 0.0.0.0",
    `--listenPort ${ports.listenPort}`,
    "--forwardHost 127.0.0.1",
    `--forwardPort ${ports.forwardPort}`,
    ...(debug ? ["--stream-log"] : []),
  ];
  return `use -e ${pkg} && exec wrwroxy ${args.join(" ")}`;
}

/** `bash -lc use` lists the packages on stderr; null when none is found or `use` is missing. */
export async function findExternalProxy(env: NodeJS.ProcessEnv): Promise<string | null> {
  const result = await capture("bash", ["-lc", "use"], { env, timeoutMs: 15_000 });
  if (result.kind !== "done") return null;
  return newestPackage(`${result.stderr}\n${result.stdout}`, "wrwroxy");
}
