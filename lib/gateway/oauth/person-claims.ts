// From what an identity provider says about a person to a hub account: the name from one
// claim (held to the same rules as `hub_gateway user add`), the groups from another, kept only
// as the operator's prefix or map says, and only those that are valid group names.
import { isGroupName, isUserName } from "../contracts/names.ts";
import type { Claims } from "./jwt-verify.ts";

export interface GroupRules {
  readonly groupsPrefix?: string | undefined;
  readonly groupsMap?: Readonly<Record<string, string>> | undefined;
}

const MAX_GROUPS = 200;

/** The account name the claim holds, or undefined when it is missing or breaks the name rules. */
export function accountName(claims: Claims, claim: string): string | undefined {
  const value = claims[claim];
  if (typeof value !== "string") return undefined;
  return isUserName(value) ? value : undefined;
}

/** The hub groups of a raw list (a claim's array, a header's comma-separated text). */
export function mapGroups(raw: unknown, rules: GroupRules): string[] {
  const values = Array.isArray(raw) ? raw : typeof raw === "string" ? raw.split(/[,;]/).map((g) => g.trim()) : [];
  const out = new Set<string>();
  for (const value of values.slice(0, MAX_GROUPS * 5)) {
    if (typeof value !== "string") continue;
    let group: string | undefined = value;
    if (rules.groupsMap) group = Object.hasOwn(rules.groupsMap, value) ? rules.groupsMap[value] : undefined;
    else if (rules.groupsPrefix !== undefined) group = value.startsWith(rules.groupsPrefix) ? value.slice(rules.groupsPrefix.length) : undefined;
    if (group !== undefined && isGroupName(group)) out.add(group);
    if (out.size >= MAX_GROUPS) break;
  }
  return [...out].sort();
}
