// API tokens: `hubmcp_<id>_<secret>`. The prefix makes a leaked token recognisable to
// secret scanners, the id names the token for `token revoke` and finds its record, and only
// a SHA-256 of the whole token is stored; checks compare hashes in constant time.
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { AccountDirectory, Principal, RecordStore, TokenVerifier } from "./contracts.ts";

export const API_TOKENS = "api-tokens";
const COLLECTION = API_TOKENS;
export const API_TOKEN_PREFIX = "hubmcp_";
const TOKEN = /^hubmcp_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const TOKEN_ID = /^[a-z0-9]{12}$/;

interface TokenRecord {
  user: string;
  /** base64url SHA-256 of the whole token. */
  hash: string;
  createdAt: string;
}

function digest(token: string): Buffer {
  return createHash("sha256").update(token).digest();
}

function newId(): string {
  // 12 base-36 characters from 64 random bits: short enough to type, long enough never to collide.
  return (randomBytes(8).readBigUInt64BE() % 36n ** 12n).toString(36).padStart(12, "0");
}

export class ApiTokens implements TokenVerifier {
  constructor(
    private readonly store: RecordStore,
    private readonly accounts: AccountDirectory,
  ) {}

  /** A new token for an existing user; the token itself is returned once and never stored. */
  async create(user: string): Promise<{ id: string; token: string } | null> {
    if ((await this.accounts.groupsOf(user)) === null) return null;
    for (;;) {
      const id = newId();
      const token = `${API_TOKEN_PREFIX}${id}_${randomBytes(32).toString("base64url")}`;
      const record: TokenRecord = { user, hash: digest(token).toString("base64url"), createdAt: new Date().toISOString() };
      if (await this.store.create(COLLECTION, id, record)) return { id, token };
    }
  }

  /** Answers false when no token has that id. */
  async revoke(id: string): Promise<boolean> {
    if (!TOKEN_ID.test(id)) return false;
    if ((await this.store.get(COLLECTION, id)) === undefined) return false;
    await this.store.delete(COLLECTION, id);
    return true;
  }

  /** Revokes every token of a user (a removed account); answers how many there were. */
  async revokeAllOf(user: string): Promise<number> {
    const theirs = (await this.list()).filter((t) => t.user === user);
    for (const t of theirs) await this.store.delete(COLLECTION, t.id);
    return theirs.length;
  }

  async list(): Promise<Array<{ id: string; user: string; createdAt: string }>> {
    return (await this.store.list<TokenRecord>(COLLECTION)).map(({ id, value }) => ({ id, user: value.user, createdAt: value.createdAt }));
  }

  async verify(token: string): Promise<Principal | null> {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const record = await this.store.get<TokenRecord>(COLLECTION, m[1]!);
    if (!record) return null;
    const expected = Buffer.from(record.hash, "base64url");
    const actual = digest(token);
    if (expected.length !== actual.length || !timingSafeEqual(expected, actual)) return null;
    // Groups as the data dir has them: removing a user from a group takes effect on the next
    // read of the account (the gateway remembers reads for limits.lookupCacheSeconds).
    const groups = await this.accounts.groupsOf(record.user);
    return groups === null ? null : { user: record.user, groups, kind: "api-token" };
  }
}
