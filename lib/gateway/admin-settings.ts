// gateway.json's `admin` section: who may use the operator's page (`/admin`) and the tool
// registry's HTTP API (`/admin/api/…`). Decided here once, so every admin surface asks the
// same question of the same setting.
import type { Principal } from "./contracts.ts";

export interface AdminSettings {
  /** Members of any of these groups are the hub's operators; empty (the default): nobody is. */
  readonly groups: readonly string[];
}

export const NO_ADMINS: AdminSettings = { groups: [] };

const GROUP_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

type Fail = (key: string, problem: string) => never;

export function parseAdminSettings(v: unknown, fail: Fail): AdminSettings {
  if (v === undefined) return NO_ADMINS;
  if (typeof v !== "object" || v === null || Array.isArray(v)) return fail("admin", "must be an object");
  const o = v as Record<string, unknown>;
  for (const k of Object.keys(o)) if (k !== "groups") fail(`admin.${k}`, "is not a known key");
  const groups = o.groups ?? [];
  if (!Array.isArray(groups) || !groups.every((g) => typeof g === "string" && GROUP_NAME.test(g))) fail("admin.groups", "must be an array of group names");
  return { groups: groups as string[] };
}

/** Whether this person is one of the hub's operators. */
export function isAdmin(settings: AdminSettings, principal: Pick<Principal, "groups">): boolean {
  return settings.groups.some((g) => principal.groups.includes(g));
}
