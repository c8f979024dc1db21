// `hub_gateway user add | list | remove | passwd | groups` on a data dir.
import { AccountError, StoreAccountDirectory } from "../identity/accounts.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { removeUser } from "./remove-user.ts";
import { groupList, NAME, passwordFromStdin, usage, type CliIo } from "./io.ts";

export interface UserArgs {
  action: string | undefined;
  name: string | undefined;
  /** `groups NAME a,b`: the list. */
  value: string | undefined;
  groups: string | undefined;
  passwordStdin: boolean;
}

function accountFailure(io: CliIo, err: unknown): number {
  if (!(err instanceof AccountError)) throw err;
  io.err(`${NAME}: ${err.message}`);
  return err.code === "HUBMCP_USER_EXISTS" || err.code === "HUBMCP_NO_SUCH_USER" ? 1 : 2;
}

export async function userCommand(io: CliIo, store: RecordStore, a: UserArgs): Promise<number> {
  const accounts = new StoreAccountDirectory(store);
  if (a.action === "list") {
    if (a.name !== undefined) return usage(io, "user list takes no NAME");
    for (const u of await accounts.list()) io.out(`${u.user}  ${u.groups.length ? u.groups.join(",") : "-"}  ${u.createdAt}`);
    return 0;
  }
  if (!["add", "remove", "passwd", "groups"].includes(a.action ?? "")) return usage(io, "user needs add, list, remove, passwd or groups");
  if (!a.name) return usage(io, `user ${a.action} needs a NAME`);
  if (a.action !== "groups" && a.value !== undefined) return usage(io, "too many arguments");
  if ((a.action === "add" || a.action === "passwd") && !a.passwordStdin) return usage(io, `user ${a.action} needs --password-stdin`);
  try {
    if (a.action === "add") {
      const groups = groupList(a.groups);
      await accounts.add(a.name, await passwordFromStdin(io), groups);
      io.out(`user ${a.name} added${groups.length ? ` (groups: ${groups.join(", ")})` : ""}`);
    } else if (a.action === "passwd") {
      await accounts.setPassword(a.name, await passwordFromStdin(io));
      io.out(`password of ${a.name} changed`);
    } else if (a.action === "groups") {
      if (a.value === undefined) return usage(io, 'user groups needs NAME and a list: a,b (or "" for none)');
      const groups = groupList(a.value);
      await accounts.setGroups(a.name, groups);
      io.out(`user ${a.name} groups: ${groups.length ? groups.join(", ") : "(none)"}`);
    } else {
      const removed = await removeUser(store, a.name);
      io.out(
        `user ${a.name} removed (${count(removed.tokens, "API token")}, ${count(removed.grants, "OAuth sign-in")}, ${count(removed.toolSessions, "tool session")} ended)`,
      );
    }
  } catch (err) {
    return accountFailure(io, err);
  }
  return 0;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? "" : "s"}`;
}
