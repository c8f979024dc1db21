// Removing a hub account ends everything it holds: API tokens, OAuth grants and browser
// sign-ins, and tool sessions. The account goes first, so every gateway refuses the user
// within its lookup cache bound even before the rest is cleaned up; the rest goes so that
// an account added later under the same name inherits nothing.
import { StoreAccountDirectory } from "../identity/accounts.ts";
import { ApiTokens } from "../identity/api-tokens.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { SESSIONS as BROWSER_SESSIONS } from "../oauth/browser-session.ts";
import { GRANTS, type GrantRecord } from "../oauth/grants.ts";
import { forgetToolSessionsOf } from "../tool-sessions/records.ts";

export interface Removed {
  tokens: number;
  grants: number;
  toolSessions: number;
}

/** Throws AccountError `HUBMCP_NO_SUCH_USER` when there is no such account. */
export async function removeUser(store: RecordStore, user: string): Promise<Removed> {
  const accounts = new StoreAccountDirectory(store);
  await accounts.remove(user);
  const tokens = await new ApiTokens(store, accounts).revokeAllOf(user);
  let grants = 0;
  for (const { id, value } of await store.list<GrantRecord>(GRANTS)) {
    if (value.user !== user || value.revoked) continue;
    // Atomic, so a refresh rotating this grant at the same moment cannot write it back unrevoked.
    const after = await store.update<GrantRecord>(GRANTS, id, (grant) => (grant && !grant.revoked ? { ...grant, revoked: true } : undefined));
    if (after?.revoked) grants++;
  }
  for (const { id, value } of await store.list<{ user: string }>(BROWSER_SESSIONS)) {
    if (value.user === user) await store.delete(BROWSER_SESSIONS, id);
  }
  const toolSessions = await forgetToolSessionsOf(store, user);
  return { tokens, grants, toolSessions };
}
