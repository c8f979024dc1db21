// gateway.json's `registry` section: what a tool registered in the store (by `hub_gateway
// tool …` or the admin API) may ask for beyond what gateway.json's own tools get. Whoever
// registers a tool does not get to choose which account runs it, nor which of the gateway's
// variables it sees: the operator lists those here. Empty lists (the default): a registered
// tool runs as gateway.json's top-level `runAs` and sees its top-level `env`, nothing else.
import { s, type Converted, type Infer, problem, section, type Fail } from "../../schema/index.ts";
import { ACCOUNT_PATTERN, type ChildIdentity, ENV_NAME_PATTERN } from "./tool-settings.ts";

/** The `registry` section as written in gateway.json. */
export const registrySchema = problem(
  s.object(
    {
      /** Accounts (and `@person`) a registered tool may name as its `runAs`. */
      runAs: problem(s.array(s.string({ pattern: ACCOUNT_PATTERN })).default([]), 'must be an array of OS account names or "@person"'),
      /** Environment variable names a registered tool may name in its `env`. */
      env: problem(s.array(s.string({ pattern: ENV_NAME_PATTERN })).default([]), "must be an array of environment variable names"),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

export type RegistrySettings = Converted<
  Infer<typeof registrySchema>,
  {
    /** gateway.json's top-level `runAs` and `env`, which a registered tool inherits as the file's tools do. */
    inherited: ChildIdentity;
  }
>;

const REGISTRY = section(registrySchema);

export function parseRegistrySettings(v: unknown, inherited: ChildIdentity, fail: Fail): RegistrySettings {
  return { ...REGISTRY.check(v ?? {}, "registry", fail), inherited };
}
