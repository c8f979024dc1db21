// Who tool session children run as, and with what environment. A tool may run code its
// users send, so a child must not be able to read or write the gateway's data dir (keys,
// accounts, tokens) nor see the gateway's environment: children run as a configured
// unprivileged account (`runAs`; `nobody` when the gateway is root and nothing is set) with
// only the variables a tool needs. A gateway that cannot switch accounts says so once, loudly.
import { readFileSync } from "node:fs";
import type { GatewayConfig } from "../config/gateway-config.ts";
import { runCommand } from "../../util/run-command.ts";

/** An OS account as `getent passwd` gives it (so LDAP and other NSS sources work too). */
export interface Account {
  readonly name: string;
  readonly uid: number;
  readonly gid: number;
  readonly home: string;
}

/** The account children run as when the gateway runs as root and no `runAs` is configured. */
export const DEFAULT_RUN_AS = "nobody";

/** `runAs` value: each person's tool sessions run as the OS account of the same name (hubs that map people to accounts). */
export const PERSON = "@person";

/** A person's account must be a login account (UID_MIN of login.defs), never a system one such as root or daemon. */
const PERSON_MIN_UID = 1000;

/** Always passed when set: what any program needs to run and print as its user expects. */
const BASE_ENV = ["PATH", "LANG", "LANGUAGE", "TZ", "TERM"];

const known = new Map<string, Promise<Account | null>>();

export function lookupAccount(name: string): Promise<Account | null> {
  let found = known.get(name);
  if (!found) {
    found = runCommand("getent", ["passwd", "--", name], { timeoutMs: 10_000, maxOutputBytes: 64 * 1024 }).then((ran) => {
      const f = ran.code === 0 ? ran.stdout.trim().split(":") : [];
      const uid = Number(f[2]);
      const gid = Number(f[3]);
      // getent takes an all-digit name as a uid: only an account of exactly this name counts.
      return f.length >= 7 && f[0] === name && Number.isInteger(uid) && Number.isInteger(gid) ? { name: f[0]!, uid, gid, home: f[5]! } : null;
    });
    known.set(name, found);
    void found.then((a) => a ?? known.delete(name));
  }
  return found;
}

/** Root, or an account given CAP_KILL, CAP_SETGID and CAP_SETUID (e.g. systemd AmbientCapabilities): switch, and stop what it started. */
export function canSwitchAccounts(): boolean {
  if (process.getuid?.() === 0) return true;
  try {
    const caps = /^CapEff:\s*([0-9a-f]+)$/m.exec(readFileSync("/proc/self/status", "utf8"))?.[1];
    // CAP_CHOWN, CAP_FOWNER (session dirs made over to the account), CAP_KILL, CAP_SETGID, CAP_SETUID.
    return caps !== undefined && (BigInt(`0x${caps}`) & 0xe9n) === 0xe9n;
  } catch {
    return false;
  }
}

/** The account a tool's children run as: the configured one, `nobody` under root, else none (the gateway's own). */
export function runAsFor(configured: string | undefined): string | undefined {
  return configured ?? (process.getuid?.() === 0 ? DEFAULT_RUN_AS : undefined);
}

/**
 * The account to switch to for `person`'s tool session, or null to run as the gateway;
 * rejects when it does not exist or cannot be switched to.
 */
export async function childAccount(configured: string | undefined, person: string): Promise<Account | null> {
  const name = configured === PERSON ? person : runAsFor(configured);
  if (name === undefined) return null;
  const account = await lookupAccount(name);
  if (!account) throw new Error(`runAs: no account named ${name}`);
  if (configured === PERSON && (account.uid < PERSON_MIN_UID || account.uid === process.getuid?.())) {
    throw new Error(`runAs ${PERSON}: ${name} is a system account or the gateway's own`);
  }
  if (account.uid === process.getuid?.() && account.gid === process.getgid?.()) return null;
  if (!canSwitchAccounts())
    throw new Error(`runAs: this gateway cannot switch to ${name} (needs root or CAP_CHOWN, CAP_FOWNER, CAP_KILL, CAP_SETGID and CAP_SETUID)`);
  return account;
}

/** The environment of a child: the base variables and the tool's allow-list from `from`, then the session's own. */
export function childEnv(from: NodeJS.ProcessEnv, allow: readonly string[], account: Account | null, session: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(from)) {
    if (value !== undefined && (BASE_ENV.includes(name) || name.startsWith("LC_") || allow.includes(name))) env[name] = value;
  }
  if (account) Object.assign(env, { HOME: account.home, USER: account.name, LOGNAME: account.name });
  else if (from.HOME !== undefined) env.HOME = from.HOME;
  return Object.assign(env, session);
}

/**
 * What an operator must hear at start: tools that would run with the gateway's own identity
 * (and so could read its data dir), and `runAs` accounts that cannot be used. One line each.
 */
export async function identityWarnings(config: GatewayConfig): Promise<string[]> {
  const names = new Map<string, string[]>();
  const shared: string[] = [];
  for (const [tool, spec] of Object.entries(config.tools)) {
    // Every started revision of a tool carries the tool's setting.
    const started = Object.values(spec.revisions).find((r) => r.kind !== "url");
    if (started === undefined) continue;
    const name = runAsFor(started.runAs);
    if (name === undefined) shared.push(tool);
    else names.set(name, [...(names.get(name) ?? []), tool]);
  }
  const out: string[] = [];
  const oneAccount: string[] = [];
  for (const [name, tools] of names) {
    if (name === PERSON) {
      if (!canSwitchAccounts())
        out.push(
          `this gateway cannot switch to people's accounts (needs root or CAP_CHOWN, CAP_FOWNER, CAP_KILL, CAP_SETGID and CAP_SETUID): tool sessions of ${tools.join(", ")} will fail to start`,
        );
      continue;
    }
    const account = await lookupAccount(name);
    if (!account) out.push(`runAs account ${name} does not exist: tool sessions of ${tools.join(", ")} will fail to start`);
    else if (account.uid === process.getuid?.()) shared.push(...tools);
    else if (!canSwitchAccounts())
      out.push(
        `this gateway cannot switch to ${name} (needs root or CAP_CHOWN, CAP_FOWNER, CAP_KILL, CAP_SETGID and CAP_SETUID): tool sessions of ${tools.join(", ")} will fail to start`,
      );
    else oneAccount.push(`${tools.join(", ")} (as ${name})`);
  }
  // Processes of one account are not walls between each other (signals, ptrace, its files):
  // a tool that runs people's code lets one person reach another's sessions there.
  if (oneAccount.length > 0) {
    out.push(
      `note: every person's tool sessions of ${oneAccount.join("; ")} run as one account, which keeps them from the gateway's data but not from each other; for tools that run people's own code set "runAs": "@person" (docs/gateway.md, "Deployment")`,
    );
  }
  if (shared.length > 0) {
    out.push(
      `WARNING: tool sessions of ${shared.join(", ")} run as the gateway's own account and can read and change its data dir (keys, accounts, tokens); set "runAs" to an unprivileged account (docs/gateway.md, "Deployment")`,
    );
  }
  return out;
}
