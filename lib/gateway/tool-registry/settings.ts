// gateway.json's `registry` section: what a tool registered in the store (by `hub_gateway
// tool …` or the admin API) may ask for beyond what gateway.json's own tools get. Whoever
// registers a tool does not get to choose which account runs it, nor which of the gateway's
// variables it sees: the operator lists those here. Empty lists (the default): a registered
// tool runs as gateway.json's top-level `runAs` and sees its top-level `env`, nothing else.
/** gateway.json's top-level `runAs` and `env` (config.ts's ChildIdentity; not imported, which would make a cycle). */
export interface Inherited {
  readonly runAs?: string;
  readonly env?: readonly string[];
}

export interface RegistrySettings {
  /** Accounts (and `@person`) a registered tool may name as its `runAs`. */
  readonly runAs: readonly string[];
  /** Environment variable names a registered tool may name in its `env`. */
  readonly env: readonly string[];
  /** gateway.json's top-level `runAs` and `env`, which a registered tool inherits as the file's tools do. */
  readonly inherited: Inherited;
}

type Fail = (key: string, problem: string) => never;

const ACCOUNT = /^([A-Za-z_][A-Za-z0-9._-]{0,31}\$?|@person)$/;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

function names(v: unknown, key: string, pattern: RegExp, what: string, fail: Fail): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || !v.every((n) => typeof n === "string" && pattern.test(n))) return fail(key, `must be an array of ${what}`);
  return v as string[];
}

export function parseRegistrySettings(v: unknown, inherited: Inherited, fail: Fail): RegistrySettings {
  if (v === undefined) return { runAs: [], env: [], inherited };
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("registry", "must be an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "runAs" && k !== "env") fail(`registry.${k}`, "is not a known key");
  return {
    runAs: names(o.runAs, "registry.runAs", ACCOUNT, 'OS account names or "@person"', fail),
    env: names(o.env, "registry.env", ENV_NAME, "environment variable names", fail),
    inherited,
  };
}
