// Hub accounts in the record store: one record per user with an scrypt hash of the
// password. Password checks cost the same whether or not the user exists, so timing does
// not tell which names are accounts.
import { randomBytes, scrypt as scryptCb, type ScryptOptions } from "node:crypto";
import { safeEqual } from "../../util/secrets.ts";
import type { AccountDirectory, RecordStore } from "../contracts/interfaces.ts";
import { isGroupName, isUserName } from "../contracts/names.ts";

export const ACCOUNTS = "accounts";
const COLLECTION = ACCOUNTS;
const KEY_LENGTH = 32;
const PARAMS = { N: 16384, r: 8, p: 1 } as const;
/** The password of an account made by a sign-in at the hub's identity provider: matches nothing. */
const NO_PASSWORD = "none";

interface AccountRecord {
  user: string;
  groups: string[];
  /** scrypt$N$r$p$salt$hash, base64url parts; NO_PASSWORD for people who sign in elsewhere. */
  password: string;
  createdAt: string;
}

export class AccountError extends Error {
  constructor(
    readonly code: "HUBMCP_BAD_USER_NAME" | "HUBMCP_BAD_GROUP_NAME" | "HUBMCP_EMPTY_PASSWORD" | "HUBMCP_USER_EXISTS" | "HUBMCP_NO_SUCH_USER",
    message: string,
  ) {
    super(message);
  }
}

function scrypt(password: string, salt: Buffer, options: ScryptOptions): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scryptCb(password, salt, KEY_LENGTH, { ...options, maxmem: 64 * 1024 * 1024 }, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password, salt, PARAMS);
  return ["scrypt", PARAMS.N, PARAMS.r, PARAMS.p, salt.toString("base64url"), key.toString("base64url")].join("$");
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split("$");
  if (scheme !== "scrypt" || !salt || !hash) return false;
  const expected = Buffer.from(hash, "base64url");
  const key = await scrypt(password, Buffer.from(salt, "base64url"), { N: Number(n), r: Number(r), p: Number(p) });
  return safeEqual(key, expected);
}

// Compared against when the user does not exist, so a miss takes as long as a wrong password.
const DUMMY = hashPassword("not a password");

export function checkUserName(user: string): void {
  if (!isUserName(user)) throw new AccountError("HUBMCP_BAD_USER_NAME", "user names are 1-64 letters, digits, '.', '_', '@' or '-'");
}

function checkGroups(groups: readonly string[]): void {
  if (!groups.every(isGroupName)) throw new AccountError("HUBMCP_BAD_GROUP_NAME", "group names are letters, digits, '.', '_' or '-'");
}

function checkPassword(password: string): void {
  if (password === "") throw new AccountError("HUBMCP_EMPTY_PASSWORD", "the password must not be empty");
}

export class StoreAccountDirectory implements AccountDirectory {
  constructor(private readonly store: RecordStore) {}

  /** Creates an account; refuses an existing name. */
  async add(user: string, password: string, groups: readonly string[] = []): Promise<void> {
    checkUserName(user);
    checkGroups(groups);
    checkPassword(password);
    const record: AccountRecord = { user, groups: [...groups], password: await hashPassword(password), createdAt: new Date().toISOString() };
    if (!(await this.store.create(COLLECTION, user, record))) throw new AccountError("HUBMCP_USER_EXISTS", `user ${user} already exists`);
  }

  /** Every account, by name; no password hashes. */
  async list(): Promise<Array<{ user: string; groups: readonly string[]; createdAt: string }>> {
    const records = await this.store.list<AccountRecord>(COLLECTION);
    return records.map(({ value }) => ({ user: value.user, groups: value.groups, createdAt: value.createdAt })).sort((a, b) => (a.user < b.user ? -1 : 1));
  }

  async setPassword(user: string, password: string): Promise<void> {
    checkPassword(password);
    const hash = await hashPassword(password);
    await this.#change(user, (record) => ({ ...record, password: hash }));
  }

  async setGroups(user: string, groups: readonly string[]): Promise<void> {
    checkGroups(groups);
    await this.#change(user, (record) => ({ ...record, groups: [...groups] }));
  }

  /** Deletes the account; its tokens and sign-ins are ended by `removeUser`. */
  async remove(user: string): Promise<void> {
    checkUserName(user);
    if (!(await this.store.get<AccountRecord>(COLLECTION, user))) throw new AccountError("HUBMCP_NO_SUCH_USER", `no user ${user}`);
    await this.store.delete(COLLECTION, user);
  }

  // One atomic update, which leaves an absent record absent: a password or group change racing
  // a removal can never bring the account back.
  async #change(user: string, change: (record: AccountRecord) => AccountRecord): Promise<void> {
    checkUserName(user);
    let found = false;
    await this.store.update<AccountRecord>(COLLECTION, user, (record) => {
      found = record !== undefined;
      return record ? change(record) : undefined;
    });
    if (!found) throw new AccountError("HUBMCP_NO_SUCH_USER", `no user ${user}`);
  }

  async verifyPassword(user: string, password: string): Promise<{ user: string; groups: readonly string[] } | null> {
    const record = isUserName(user) ? await this.store.get<AccountRecord>(COLLECTION, user) : undefined;
    // An account without a password costs the same as a miss, so timing tells neither apart.
    const stored = record && record.password !== NO_PASSWORD ? record.password : await DUMMY;
    const ok = await passwordMatches(password, stored);
    return ok && record && record.password !== NO_PASSWORD ? { user: record.user, groups: record.groups } : null;
  }

  /**
   * A person the hub's identity provider (or front end) vouched for: their groups as it says now,
   * the account created without a password when `create`, else only an existing one updated.
   * False when there is no such account and none may be made.
   */
  async provision(user: string, groups: readonly string[], create: boolean): Promise<boolean> {
    checkUserName(user);
    checkGroups(groups);
    let found = false;
    await this.store.update<AccountRecord>(COLLECTION, user, (record) => {
      found = record !== undefined;
      return record ? { ...record, groups: [...groups] } : undefined;
    });
    if (found || !create) return found;
    const record: AccountRecord = { user, groups: [...groups], password: NO_PASSWORD, createdAt: new Date().toISOString() };
    // Lost a race with another sign-in (or `user add`): that account stands, with these groups.
    if (!(await this.store.create(COLLECTION, user, record))) return this.provision(user, groups, false);
    return true;
  }

  async groupsOf(user: string): Promise<readonly string[] | null> {
    if (!isUserName(user)) return null;
    const record = await this.store.get<AccountRecord>(COLLECTION, user);
    return record ? record.groups : null;
  }
}
