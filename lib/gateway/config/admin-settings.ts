// gateway.json's `admin` section: who may use the operator's page (`/admin`) and the tool
// registry's HTTP API (`/admin/api/…`). Decided here once, so every admin surface asks the
// same question of the same setting.
import { s, type Infer, problem, section, type Fail } from "../../schema/index.ts";
import type { Principal } from "../contracts/interfaces.ts";
import { GROUP_NAME_PATTERN } from "../contracts/names.ts";

/** The `admin` section as written in gateway.json. */
export const adminSchema = problem(
  s.object(
    {
      /** Members of any of these groups are the hub's operators; empty (the default): nobody is. */
      groups: problem(s.array(s.string({ pattern: GROUP_NAME_PATTERN })).default([]), "must be an array of group names"),
    },
    { additionalProperties: false },
  ),
  "must be an object",
);

export type AdminSettings = Readonly<Infer<typeof adminSchema>>;

export const NO_ADMINS: AdminSettings = { groups: [] };

const ADMIN = section(adminSchema);

export function parseAdminSettings(v: unknown, fail: Fail): AdminSettings {
  if (v === undefined) return NO_ADMINS;
  return ADMIN.check(v, "admin", fail);
}

/** Whether this person is one of the hub's operators. */
export function isAdmin(settings: AdminSettings, principal: Pick<Principal, "groups">): boolean {
  return settings.groups.some((g) => principal.groups.includes(g));
}
