// API tokens: `hubmcp_<id>_<secret>`. The prefix makes a leaked token recognisable to
// secret scanners, the id names the token for `token revoke` and finds its record, and only
// a SHA-256 of the whole token is stored; checks compare hashes in constant time.
import * as crypto from "node:crypto";
import { randomBytes } from "node:crypto";
import { safeEqual } from "../util/secrets.ts";
import { ACCOUNTS } from "./accounts.ts";
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

// The one-shot form where Node has it (20.12+): a hash object per request costs more than the hash.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;

function digest(token: string): Buffer {
  return oneShot ? oneShot("sha256", token, "buffer") : crypto.createHash("sha256").update(token).digest();
}

/** The identity of a record's remembered copy while it is trusted (CachingRecordStore.copyOf). */
export type CopyOf = (collection: string, id: string) => object | undefined;

/** A verified token, reused while the token's and the account's records it came from are remembered unchanged. */
interface Verified {
  token: Buffer;
  principal: Principal;
  tokenCopy: object;
  accountCopy: object;
}

const VERIFIED_KEPT = 10_000;

function newId(): string {
  // 12 base-36 characters from 64 random bits: short enough to type, long enough never to collide.
  return (randomBytes(8).readBigUInt64BE() % 36n ** 12n).toString(36).padStart(12, "0");
}

export class ApiTokens implements TokenVerifier {
  readonly #verified = new Map<string, Verified>();

  /**
   * `copyOf`: when `store` and `accounts` read through a CachingRecordStore, its copyOf, so a
   * token verified once is not hashed and looked up again on every request while neither
   * record could have changed; revocation and removal still take effect within the cache's bound.
   */
  constructor(
    private readonly store: RecordStore,
    private readonly accounts: AccountDirectory,
    private readonly copyOf?: CopyOf,
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

  verifyNow(token: string): Principal | null | undefined {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const id = m[1]!;
    const known = this.#verified.get(id);
    if (!known || !this.copyOf) return undefined;
    const sent = Buffer.from(token);
    // The whole token compared in constant time, as the hashes are in verify.
    if (known.tokenCopy === this.copyOf(COLLECTION, id) && known.accountCopy === this.copyOf(ACCOUNTS, known.principal.user) && safeEqual(sent, known.token)) {
      return known.principal;
    }
    return undefined;
  }

  async verify(token: string): Promise<Principal | null> {
    const now = this.verifyNow(token);
    if (now !== undefined) return now;
    const id = TOKEN.exec(token)![1]!;
    const record = await this.store.get<TokenRecord>(COLLECTION, id);
    if (!record) return null;
    const expected = Buffer.from(record.hash, "base64url");
    const actual = digest(token);
    if (!safeEqual(expected, actual)) return null;
    // Groups as the data dir has them: removing a user from a group takes effect on the next
    // read of the account (the gateway remembers reads for limits.lookupCacheSeconds).
    const groups = await this.accounts.groupsOf(record.user);
    if (groups === null) return null;
    const principal: Principal = { user: record.user, groups, kind: "api-token" };
    this.#remember(id, token, principal);
    return principal;
  }

  #remember(id: string, token: string, principal: Principal): void {
    const tokenCopy = this.copyOf?.(COLLECTION, id);
    const accountCopy = this.copyOf?.(ACCOUNTS, principal.user);
    if (!tokenCopy || !accountCopy) return;
    if (this.#verified.size >= VERIFIED_KEPT) this.#verified.clear();
    // Frozen: every request with this token shares it.
    const shared: Principal = Object.freeze({ ...principal, groups: Object.freeze([...principal.groups]) });
    this.#verified.set(id, { token: Buffer.from(token), principal: shared, tokenCopy, accountCopy });
  }
}
