// `command`: a hub's own session launcher, run as the tool's account in a process group of
// its own, that prints one JSON line `{url, cookie?}` naming where the session answers.
import { spawnGroup } from "../../util/process-group.ts";
import { childEnv } from "../hosting/run-as.ts";
import { accountFor, asAccount, firstLine } from "./child.ts";
import { NEVER, ToolSessionLaunchError, type ToolBackend } from "./contract.ts";

export const command: ToolBackend<"command"> = {
  kind: "command",
  async start(req, revision) {
    const account = await accountFor(req, revision.runAs);
    const env = childEnv(req.env ?? process.env, revision.env ?? [], account, {
      HUB_USER: req.user,
      HUB_TOOL: req.tool,
      HUB_REVISION: req.revisionName,
      HUB_SESSION: req.instance,
    });
    const [program, ...args] = revision.command;
    const group = spawnGroup(program!, args, { env, output: "pipe", ...asAccount(account) });
    let line: string;
    try {
      line = await firstLine(group, req.startTimeoutMs, (l) => l.startsWith("{"), req.onOutput);
    } catch (err) {
      await group.stop();
      throw err;
    }
    let info: unknown;
    try {
      info = JSON.parse(line);
    } catch {
      info = null;
    }
    const { url, cookie } = (info ?? {}) as { url?: unknown; cookie?: unknown };
    if (typeof url !== "string" || !/^http:\/\//.test(url) || (cookie !== undefined && typeof cookie !== "string") || !URL.canParse(url)) {
      await group.stop();
      throw new ToolSessionLaunchError("HUBMCP_SESSION_LAUNCH_FAILED", "the session command printed no usable {url, cookie} line");
    }
    // A launcher that exits cleanly after printing hands the session to something else (a
    // batch system, a hub): only a failing exit, or one while running, ends the session.
    let stopping = false;
    return {
      url: url.endsWith("/") ? url : `${url}/`,
      cookie: cookie as string | undefined,
      pid: group.pid,
      exited: group.exited.then((code) => (stopping || code === 0 ? NEVER : undefined)),
      stop: async () => {
        stopping = true;
        await group.stop();
      },
    };
  },
};
