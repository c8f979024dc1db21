// `hub_gateway token create | revoke | list` on a data dir.
import { StoreAccountDirectory } from "../accounts.ts";
import { ApiTokens } from "../api-tokens.ts";
import type { RecordStore } from "../contracts.ts";
import { NAME, usage, type CliIo } from "./io.ts";

export async function tokenCommand(io: CliIo, store: RecordStore, action: string | undefined, arg: string | undefined): Promise<number> {
  const tokens = new ApiTokens(store, new StoreAccountDirectory(store));
  if (action === "create") {
    if (!arg) return usage(io, "token create needs a user NAME");
    const made = await tokens.create(arg);
    if (!made) {
      io.err(`${NAME}: no such user`);
      return 1;
    }
    io.out(made.token);
    io.err(`${NAME}: token ${made.id} created; it is shown only this once`);
    return 0;
  }
  if (action === "revoke") {
    if (!arg) return usage(io, "token revoke needs a token ID");
    if (!(await tokens.revoke(arg))) {
      io.err(`${NAME}: no token with that id`);
      return 1;
    }
    io.out(`token ${arg} revoked`);
    return 0;
  }
  if (action === "list") {
    if (arg !== undefined) return usage(io, "token list takes no argument");
    // id, owner, created: the owner is the account the token acts for.
    for (const t of await tokens.list()) io.out(`${t.id}  ${t.user}  ${t.createdAt}`);
    return 0;
  }
  return usage(io, "token needs create, revoke or list");
}
