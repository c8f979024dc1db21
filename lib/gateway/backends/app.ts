// `app`: start_mcp as a child of the gateway on an ephemeral loopback port, which its ready
// line names (lib/util/ready-line.ts). It runs as the tool's account with a reduced
// environment (../hosting/run-as.ts), in a process group of its own, so stopping it reaches
// everything it started, and answers only requests carrying its per-session secret, which
// the gateway adds when forwarding (lib/http/session-secret.ts). `rappture` revisions start
// the same way (./rappture.ts), and so do `stdio` revisions, under start_mcp --stdio-server (./stdio.ts).
import { randomBytes } from "node:crypto";
import { chown, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SECRET_COOKIE, SECRET_FILE_ENV } from "../../http/session-secret.ts";
import { spawnGroup, type ChildProcessHandle } from "../../util/process-group.ts";
import { parseReadyLine, type ReadyInfo } from "../../util/ready-line.ts";
import { provesSession } from "../hosting/ready-address.ts";
import { childEnv, type Account } from "../hosting/run-as.ts";
import { servedFile } from "../config/served-settings.ts";
import { toolSessionStateDir } from "../hosting/state-dirs.ts";
import { accountFor, asAccount, firstLine } from "./child.ts";
import { ToolSessionLaunchError, type Backend, type LaunchRequest, type RevisionOf, type ToolBackend } from "./contract.ts";
import { launcherCommand } from "./start-mcp.ts";

/** Writes a file only the child's account (and the gateway) can read. */
async function privateFile(path: string, text: string, account: Account | null): Promise<void> {
  await writeFile(path, text, { mode: 0o600 });
  if (account) await chown(path, account.uid, account.gid);
}

/**
 * The session proxy path, in a hub's `/weber/<session>/<cookie>/<port>` shape; the gateway
 * routes on the session segment only, so the last one is a fixed placeholder.
 */
function weberPrefixOf(instance: string): string {
  return `/weber/${instance}/${instance.slice(0, 16)}/0`;
}

/** The child's ready line, if it is one naming the loopback address and the prefix it was given. */
function readyAt(line: string, prefix: string): ReadyInfo | null {
  const info = parseReadyLine(line);
  return info && new URL(info.url).hostname === "127.0.0.1" && info.prefix === prefix ? info : null;
}

type Served = RevisionOf<"app"> | RevisionOf<"rappture"> | RevisionOf<"stdio">;

/** What start_mcp is told to serve: an app or tool.xml, or a stdio server's command (last: it follows `--`). */
function servedArgs(revision: Served): { flags: string[]; tail: string[] } {
  if (revision.kind === "stdio") return { flags: ["--stdio-server"], tail: ["--", ...revision.stdio] };
  const { key, file } = servedFile(revision);
  return { flags: [`--${key}`, file], tail: [] };
}

/** Starts start_mcp serving an `app` or `rappture` revision's file, or a `stdio` revision's server, on loopback. */
export async function startServed(req: LaunchRequest, revision: Served): Promise<Backend> {
  const account = await accountFor(req, revision.runAs);
  // The child binds a port of its own choosing and strips the proxy path it is given; its
  // ready line says where it listens. Its folder holds the secret and is its account's alone.
  const dir = await mkdtemp(join(tmpdir(), "hubmcp-gw-"));
  const cleanup = (): Promise<void> => rm(dir, { recursive: true, force: true });
  const prefix = weberPrefixOf(req.instance);
  const secret = randomBytes(32).toString("base64url");
  let group: ChildProcessHandle;
  try {
    const stateDir = await toolSessionStateDir(await req.stateRoots.root({ kind: "app", parent: tmpdir() }), req.user, req.tool, req.revisionName, account);
    if (account) await chown(dir, account.uid, account.gid);
    await privateFile(join(dir, "secret"), secret, account);
    const env = childEnv(req.env ?? process.env, revision.env ?? [], account, {
      [SECRET_FILE_ENV]: join(dir, "secret"),
      HUB_USER: req.user,
      HUB_TOOL: req.tool,
      HUB_REVISION: req.revisionName,
    });
    const { flags: served, tail } = servedArgs(revision);
    const args = [...served, "--host", "127.0.0.1", "--port", "0", "--path-prefix", prefix, "--ready-line", "--state-dir", stateDir, ...tail];
    // Always one per person for stdio (../config/gateway-config.ts refuses "shared": a stdio server's requests name no call).
    const [command, ...flags] = launcherCommand(revision.kind === "stdio" || revision.isolation !== "shared");
    // A stdio server runs from gateway.json's folder, so the command's relative paths mean what they say there.
    const cwd = revision.kind === "stdio" ? revision.cwd : dir;
    group = spawnGroup(command!, [...flags, ...args], { env, cwd, output: "pipe", ...asAccount(account) });
  } catch (err) {
    await cleanup();
    throw err;
  }
  void group.exited.then(cleanup);
  let ready: ReadyInfo;
  try {
    ready = readyAt(await firstLine(group, req.startTimeoutMs, (line) => readyAt(line, prefix) !== null, req.onOutput), prefix)!;
    // Any process of the session's account can write into the child's stdout (/proc/<pid>/fd/1).
    if (!(await provesSession(ready.url, secret))) {
      req.onOutput("the server at the tool session's ready address did not prove it is the session's: refused");
      throw new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the tool session's ready line was refused");
    }
  } catch (err) {
    await group.stop();
    throw err;
  }
  return {
    url: ready.url,
    cookie: `${SECRET_COOKIE}=${secret}`,
    weberPrefix: prefix,
    pid: group.pid,
    exited: group.exited.then(() => {}),
    stop: () => group.stop(),
  };
}

export const app: ToolBackend<"app"> = { kind: "app", start: startServed };
