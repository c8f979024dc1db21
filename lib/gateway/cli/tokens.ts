// `hub_gateway token create | revoke | list` on a data dir.
import { StoreAccountDirectory } from "../identity/accounts.ts";
import { ApiTokens, tokenName, type NewToken } from "../identity/api-tokens.ts";
import type { AuditEntry } from "../audit/entry.ts";
import type { RecordStore } from "../contracts/interfaces.ts";
import { NAME, usage, type CliIo } from "./io.ts";
import { whoAmI } from "./trail.ts";

export interface TokenOptions {
  /** `--expires`: a lifetime such as `30d`. */
  readonly expires?: string | undefined;
  /** `--name`: what the owner calls the token. */
  readonly name?: string | undefined;
  /** Where a change goes on the audit trail (`--config` naming a file trail), as the account page's changes do. */
  readonly audit?: ((entry: AuditEntry) => void) | undefined;
}

const UNIT_MS: Record<string, number> = { h: 3600_000, d: 86_400_000, w: 7 * 86_400_000 };
/** Ten years: past that, an expiry is a typo for "never", which is the default anyway. */
const LONGEST_MS = 3650 * 86_400_000;

/** `--expires` as milliseconds (`12h`, `30d`, `8w`), or null when it is not one. */
export function parseLifetime(text: string): number | null {
  const m = /^([1-9][0-9]{0,5})([hdw])$/.exec(text);
  if (!m) return null;
  const ms = Number(m[1]) * UNIT_MS[m[2]!]!;
  return ms <= LONGEST_MS ? ms : null;
}

function newToken(options: TokenOptions): NewToken | string {
  let made: NewToken = {};
  if (options.name !== undefined) {
    const name = tokenName(options.name);
    if (name === null) return "--name must be 1-64 printable characters";
    made = { name };
  }
  if (options.expires !== undefined) {
    const ms = parseLifetime(options.expires);
    if (ms === null) return "--expires must be a lifetime such as 12h, 30d or 8w (at most 3650d)";
    made = { ...made, expiresAt: new Date(Date.now() + ms) };
  }
  return made;
}

export async function tokenCommand(
  io: CliIo,
  store: RecordStore,
  action: string | undefined,
  arg: string | undefined,
  options: TokenOptions = {},
): Promise<number> {
  const tokens = new ApiTokens(store, new StoreAccountDirectory(store));
  if (action !== "create" && (options.expires !== undefined || options.name !== undefined)) {
    return usage(io, "--expires and --name go with token create");
  }
  if (action === "create") {
    if (!arg) return usage(io, "token create needs a user NAME");
    const wanted = newToken(options);
    if (typeof wanted === "string") return usage(io, wanted);
    const made = await tokens.create(arg, wanted);
    if (!made) {
      io.err(`${NAME}: no such user`);
      return 1;
    }
    options.audit?.({
      event: "token.create",
      person: arg,
      by: whoAmI(),
      tokenId: made.id,
      name: wanted.name,
      expiresAt: wanted.expiresAt?.toISOString(),
      outcome: "ok",
    });
    io.out(made.token);
    const until = wanted.expiresAt ? `, valid until ${wanted.expiresAt.toISOString()}` : "";
    io.err(`${NAME}: token ${made.id} created${until}; it is shown only this once`);
    return 0;
  }
  if (action === "revoke") {
    if (!arg) return usage(io, "token revoke needs a token ID");
    const token = (await tokens.list()).find((t) => t.id === arg);
    if (!token || !(await tokens.revoke(arg))) {
      io.err(`${NAME}: no token with that id`);
      return 1;
    }
    options.audit?.({ event: "token.revoke", person: token.user, by: whoAmI(), tokenId: arg, name: token.name, expiresAt: token.expiresAt, outcome: "ok" });
    io.out(`token ${arg} revoked`);
    return 0;
  }
  if (action === "list") {
    if (arg !== undefined) return usage(io, "token list takes no argument");
    // id, owner (the account the token acts for), created, expires, last used, name.
    for (const t of await tokens.list()) {
      io.out([t.id, t.user, t.createdAt, t.expiresAt ?? "never", t.lastUsedAt ?? "-", t.name ?? "-"].join("  "));
    }
    return 0;
  }
  return usage(io, "token needs create, revoke or list");
}
