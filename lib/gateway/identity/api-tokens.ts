// API tokens: `hubmcp_<id>_<secret>`. The prefix makes a leaked token recognisable to
// secret scanners, the id names the token for `token revoke` and finds its record, and only
// a SHA-256 of the whole token is stored; checks compare hashes in constant time.
import * as crypto from "node:crypto";
import { randomBytes } from "node:crypto";
import { sameDigest } from "../../util/secrets.ts";
import { ACCOUNTS } from "./accounts.ts";
import type { AccountDirectory, Principal, RecordStore, TokenVerifier } from "../contracts/interfaces.ts";

export const API_TOKENS = "api-tokens";
/** Last use, apart from the token's record: writing it leaves the remembered token (verifyNow) valid. */
const USE = "api-token-use";
const COLLECTION = API_TOKENS;
export const API_TOKEN_PREFIX = "hubmcp_";
const TOKEN = /^hubmcp_([a-z0-9]{12})_([A-Za-z0-9_-]{43})$/;
const TOKEN_ID = /^[a-z0-9]{12}$/;

interface TokenRecord {
  user: string;
  /** base64url SHA-256 of the whole token. */
  hash: string;
  createdAt: string;
  /** What its owner calls it ("laptop"); tokens made before names existed have none. */
  name?: string;
  /** ISO time after which the token is refused as if revoked; absent: it never expires. */
  expiresAt?: string;
}

/** A token as its owner and the operator see it: never its secret or hash. */
export interface TokenInfo {
  id: string;
  user: string;
  createdAt: string;
  name?: string;
  expiresAt?: string;
  lastUsedAt?: string;
}

export interface NewToken {
  readonly name?: string;
  readonly expiresAt?: Date;
}

/** Last use is written at most this often per token and process: a busy token costs one write a minute, not one per request. */
export const LAST_USED_EVERY_MS = 60_000;
const NAME_MAX = 64;

// The one-shot form where Node has it (20.12+): a hash object per request costs more than the hash.
const oneShot = (crypto as { hash?: (algorithm: string, data: string, encoding: "buffer") => Buffer }).hash;

function digest(token: string): Buffer {
  return oneShot ? oneShot("sha256", token, "buffer") : crypto.createHash("sha256").update(token).digest();
}

/** The identity of a record's remembered copy while it is trusted (CachingRecordStore.copyOf). */
export type CopyOf = (collection: string, id: string) => object | undefined;

/** A verified token, reused while the token's and the account's records it came from are remembered unchanged. */
interface Verified {
  /** The token's SHA-256, as its record holds it: the token itself is kept nowhere. */
  digest: Buffer;
  principal: Principal;
  tokenCopy: object;
  accountCopy: object;
  expiresAt: number;
}

const VERIFIED_KEPT = 10_000;

function newId(): string {
  // 12 base-36 characters from 64 random bits: short enough to type, long enough never to collide.
  return (randomBytes(8).readBigUInt64BE() % 36n ** 12n).toString(36).padStart(12, "0");
}

/** A token name as typed: trimmed, printable, short; null when unusable. */
export function tokenName(raw: string): string | null {
  const name = raw.trim();
  return name.length > 0 && name.length <= NAME_MAX && !/[\p{Cc}\p{Cf}]/u.test(name) ? name : null;
}

function expiry(record: TokenRecord): number {
  return record.expiresAt === undefined ? Number.POSITIVE_INFINITY : Date.parse(record.expiresAt);
}

function info(id: string, value: TokenRecord, usedAt: number | undefined): TokenInfo {
  const { user, createdAt, name, expiresAt } = value;
  return {
    id,
    user,
    createdAt,
    ...(name !== undefined ? { name } : {}),
    ...(expiresAt ? { expiresAt } : {}),
    ...(usedAt !== undefined ? { lastUsedAt: new Date(usedAt).toISOString() } : {}),
  };
}

export class ApiTokens implements TokenVerifier {
  readonly #verified = new Map<string, Verified>();
  /** When this process last wrote (or read) each token's last use. */
  readonly #usedAt = new Map<string, number>();

  /**
   * `copyOf`: when `store` and `accounts` read through a CachingRecordStore, its copyOf, so a
   * token verified once is not hashed and looked up again on every request while neither
   * record could have changed; revocation and removal still take effect within the cache's bound.
   */
  constructor(
    private readonly store: RecordStore,
    private readonly accounts: AccountDirectory,
    private readonly copyOf?: CopyOf,
    /** The clock expiry and last use are read from; replaceable for specs. */
    private readonly now: () => number = Date.now,
  ) {}

  /** A new token for an existing user; the token itself is returned once and never stored. */
  async create(user: string, options: NewToken = {}): Promise<{ id: string; token: string } | null> {
    if ((await this.accounts.groupsOf(user)) === null) return null;
    for (;;) {
      const id = newId();
      const token = `${API_TOKEN_PREFIX}${id}_${randomBytes(32).toString("base64url")}`;
      const record: TokenRecord = {
        user,
        hash: digest(token).toString("base64url"),
        createdAt: new Date(this.now()).toISOString(),
        ...(options.name !== undefined ? { name: options.name } : {}),
        ...(options.expiresAt ? { expiresAt: options.expiresAt.toISOString() } : {}),
      };
      if (await this.store.create(COLLECTION, id, record)) return { id, token };
    }
  }

  /** Answers false when no token has that id. */
  async revoke(id: string): Promise<boolean> {
    if (!TOKEN_ID.test(id)) return false;
    if ((await this.store.get(COLLECTION, id)) === undefined) return false;
    await this.#delete(id);
    return true;
  }

  /** Revokes one of `user`'s own tokens; false when `user` has none with that id (another's included). */
  async revokeOf(user: string, id: string): Promise<boolean> {
    if (!TOKEN_ID.test(id)) return false;
    if ((await this.store.get<TokenRecord>(COLLECTION, id))?.user !== user) return false;
    await this.#delete(id);
    return true;
  }

  async #delete(id: string): Promise<void> {
    await this.store.delete(COLLECTION, id);
    await this.store.delete(USE, id);
  }

  /** Revokes every token of a user (a removed account); answers how many there were. */
  async revokeAllOf(user: string): Promise<number> {
    const theirs = (await this.list()).filter((t) => t.user === user);
    for (const t of theirs) await this.#delete(t.id);
    return theirs.length;
  }

  async list(): Promise<TokenInfo[]> {
    const [records, uses] = await Promise.all([this.store.list<TokenRecord>(COLLECTION), this.store.list<{ at: number }>(USE)]);
    const used = new Map(uses.map(({ id, value }) => [id, value.at]));
    return records.map(({ id, value }) => info(id, value, used.get(id)));
  }

  /** `user`'s own tokens, newest first. */
  async listOf(user: string): Promise<TokenInfo[]> {
    return (await this.list()).filter((t) => t.user === user).sort((a, b) => b.createdAt.localeCompare(a.createdAt));
  }

  verifyNow(token: string): Principal | null | undefined {
    const m = TOKEN.exec(token);
    if (!m) return null;
    const id = m[1]!;
    const known = this.#verified.get(id);
    if (!known || !this.copyOf) return undefined;
    // The token's digest compared in constant time, as in verify: one hash per request, and no token kept in memory.
    if (
      known.tokenCopy === this.copyOf(COLLECTION, id) &&
      known.accountCopy === this.copyOf(ACCOUNTS, known.principal.user) &&
      sameDigest(digest(token), known.digest)
    ) {
      // Expired is refused exactly as revoked: null, the same 401.
      if (known.expiresAt <= this.now()) return null;
      this.#used(id);
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
    const sent = digest(token);
    if (!sameDigest(expected, sent)) return null;
    if (expiry(record) <= this.now()) return null;
    // Groups as the data dir has them: removing a user from a group takes effect on the next
    // read of the account (the gateway remembers reads for limits.lookupCacheSeconds).
    const groups = await this.accounts.groupsOf(record.user);
    if (groups === null) return null;
    const principal: Principal = { user: record.user, groups, kind: "api-token" };
    this.#used(id);
    this.#remember(id, sent, principal, expiry(record));
    return principal;
  }

  /**
   * Notes a use, written at most once a minute per token. Best effort and not awaited: the
   * request it authenticates must not wait for it or fail with it; a lost write only makes
   * "last used" a minute older.
   */
  #used(id: string): void {
    const now = this.now();
    if (now - (this.#usedAt.get(id) ?? 0) < LAST_USED_EVERY_MS) return;
    if (this.#usedAt.size >= VERIFIED_KEPT) this.#usedAt.clear();
    this.#usedAt.set(id, now);
    this.store.put(USE, id, { at: now }).catch(() => undefined);
  }

  #remember(id: string, sent: Buffer, principal: Principal, expiresAt: number): void {
    const tokenCopy = this.copyOf?.(COLLECTION, id);
    const accountCopy = this.copyOf?.(ACCOUNTS, principal.user);
    if (!tokenCopy || !accountCopy) return;
    if (this.#verified.size >= VERIFIED_KEPT) this.#verified.clear();
    // Frozen: every request with this token shares it.
    const shared: Principal = Object.freeze({ ...principal, groups: Object.freeze([...principal.groups]) });
    this.#verified.set(id, { digest: sent, principal: shared, tokenCopy, accountCopy, expiresAt });
  }
}
