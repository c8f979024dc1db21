// A real `hub_gateway` process for the operator specs: started from the command line the
// operator would type, ready once it prints "ready at", stopped with SIGTERM (so it stops
// the tool servers it started) when the test ends. Runs without coverage, as the other
// gateway processes of the specs do.
import { spawn } from "node:child_process";
import { join } from "node:path";
import type { TestContext } from "node:test";
import { ROOT } from "../../helpers/launcher-fixtures.ts";

export const HUB_GATEWAY = [process.execPath, "--import", "tsx", join(ROOT, "cli", "hub_gateway.ts")];
const env = { ...process.env, NODE_V8_COVERAGE: "" };

/** Runs a one-shot command (user remove, token create, …) to its end. */
export function hubCommand(args: string[], input = ""): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(HUB_GATEWAY[0]!, [...HUB_GATEWAY.slice(1), ...args], { cwd: ROOT, env, stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c));
  child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c));
  child.stdin.end(input);
  return new Promise((resolve) => child.once("close", (code) => resolve({ code, stdout, stderr })));
}

/** Serves until the test ends; resolves with the listening URL. */
export async function serveHub(t: TestContext, args: string[]): Promise<string> {
  const child = spawn(HUB_GATEWAY[0]!, [...HUB_GATEWAY.slice(1), ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let err = "";
  child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
  const exited = new Promise((resolve) => child.once("close", resolve));
  t.after(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    child.kill("SIGTERM");
    await exited;
  });
  return new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      out += chunk;
      const m = /ready at (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    void exited.then(() => reject(new Error(`hub_gateway exited before it was ready:\n${err.slice(-2000)}`)));
  });
}

/** One JSON-RPC answer from a POST, whether the server answered JSON or an event stream. */
export async function rpcResult(res: Response): Promise<{ result?: Record<string, unknown>; error?: unknown }> {
  const text = await res.text();
  if (!(res.headers.get("content-type") ?? "").includes("text/event-stream")) return JSON.parse(text);
  const data = text
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => l.slice(5).trim());
  return JSON.parse(data.at(-1)!);
}
