// Gateway specs: an in-process gateway on a memory store with users and API tokens, and
// the fake tool server (fixtures/gateway/fake-tool.mjs) as `command` revisions.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { StoreAccountDirectory } from "../../lib/gateway/identity/accounts.ts";
import { ApiTokens } from "../../lib/gateway/identity/api-tokens.ts";
import { parseGatewayConfig } from "../../lib/gateway/config/gateway-config.ts";
import type { RecordStore } from "../../lib/gateway/contracts/interfaces.ts";
import { startGateway, type GatewayOptions, type RunningGateway } from "../../lib/gateway/server.ts";
import { StateRoots } from "../../lib/gateway/hosting/state-dirs.ts";
import { MemoryRecordStore } from "../../lib/gateway/store/memory-record-store.ts";

export const ROOT = fileURLToPath(new URL("../../", import.meta.url));
export const FAKE_TOOL = join(ROOT, "fixtures", "gateway", "fake-tool.mjs");

interface After {
  after(fn: () => unknown): void;
  diagnostic?(message: string): void;
}

let clonePrivate: boolean | undefined;

/**
 * A root gateway runs tool sessions as `nobody`, which must read this checkout's apps and
 * start_mcp. In a clone `nobody` cannot enter (under /root, in a `mktemp -d` folder) the
 * config then names root as `runAs` outright (the gateway's own account, allowed with its
 * warning), and the test output says why; the account switch itself is pinned by
 * run-as.spec.ts and launch.spec.ts on fixtures of their own.
 */
export function forThisCheckout(t: After, config: Record<string, unknown>): Record<string, unknown> {
  if (process.getuid?.() !== 0 || "runAs" in config) return config;
  clonePrivate ??= spawnSync("runuser", ["-u", "nobody", "--", "test", "-r", join(ROOT, "package.json")]).status !== 0;
  if (!clonePrivate) return config;
  t.diagnostic?.(`tool sessions run as root: this checkout (${ROOT}) is not readable by nobody, the default runAs of a root gateway`);
  return { ...config, runAs: "root" };
}

export function fake(mode = "normal"): { command: string[] } {
  return { command: [process.execPath, FAKE_TOOL, mode] };
}

export interface Harness {
  gw: RunningGateway;
  base: string;
  store: MemoryRecordStore;
  /** Tokens of alice (groups: users), bob (no groups) and carol (staff). */
  tokens: { alice: string; bob: string; carol: string };
  logs: string[];
  /** Resolves with the first log line matching. */
  waitForLog(pattern: RegExp): Promise<string>;
}

/** `extra`: options for the gateway, or a function making them of the harness's store (an authorization server on it). */
export async function startHarness(
  t: After,
  config: Record<string, unknown>,
  extra: Partial<GatewayOptions> | ((store: MemoryRecordStore) => Partial<GatewayOptions>) = {},
): Promise<Harness> {
  const store = new MemoryRecordStore();
  const accounts = new StoreAccountDirectory(store);
  const tokens = new ApiTokens(store, accounts);
  await accounts.add("alice", "pw-alice", ["users"]);
  await accounts.add("bob", "pw-bob");
  await accounts.add("carol", "pw-carol", ["staff"]);
  const made = { alice: (await tokens.create("alice"))!.token, bob: (await tokens.create("bob"))!.token, carol: (await tokens.create("carol"))!.token };
  const logs: string[] = [];
  const watchers: Array<{ pattern: RegExp; resolve: (line: string) => void }> = [];
  const log = (line: string): void => {
    logs.push(line);
    for (const w of [...watchers]) if (w.pattern.test(line)) watchers.splice(watchers.indexOf(w), 1), w.resolve(line);
  };
  const gw = await startGateway({
    config: parseGatewayConfig(forThisCheckout(t, config), ROOT),
    store,
    log,
    ...(typeof extra === "function" ? extra(store) : extra),
  });
  t.after(async () => {
    await gw.close();
    // The tool sessions' state roots it made (in the temp folder, for app revisions) go with it.
    for (const { value } of await store.list<{ path: string }>("state-roots")) rmSync(value.path, { recursive: true, force: true });
  });
  return {
    gw,
    base: gw.url.slice(0, -1),
    store,
    tokens: made,
    logs,
    waitForLog: (pattern) =>
      new Promise((resolve) => {
        const hit = logs.find((l) => pattern.test(l));
        if (hit) resolve(hit);
        else watchers.push({ pattern, resolve });
      }),
  };
}

/**
 * Makes, now, the root where a gateway on `store` keeps its `app` sessions' state directories
 * (in the temp folder, one per store), and removes it when `t` ends: gateways that are other
 * processes, or whose data dir goes first, cannot be asked afterwards where theirs was.
 */
export async function stateRootFor(t: After, store: RecordStore): Promise<string> {
  const root = await new StateRoots(store).root({ kind: "app", parent: tmpdir() });
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

export function rpc(method: string, params: Record<string, unknown> = {}, id: number | string = 1): string {
  return JSON.stringify({ jsonrpc: "2.0", id, method, params });
}

export async function post(url: string, token: string | undefined, body: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...headers,
    },
    body,
  });
}

export function pidsIn(file: string): number[] {
  return existsSync(file) ? readFileSync(file, "utf8").split("\n").filter(Boolean).map(Number) : [];
}

/** A response's JSON body, loosely typed for assertions. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function json(res: Response): Promise<any> {
  return res.json();
}
