// A back-off per account for the sign-in form, beside the limit per address: a guesser with
// many addresses gets FREE_TRIES guesses at an account, then one per wait, the wait doubling
// from a second up to a minute. The cap is what keeps it from becoming a lock-out tool: the
// most anyone can make a person wait is a minute. In memory and per process, like the other
// limits (N replicas allow N times the guesses); a sign-in or an hour of quiet clears it.

const FREE_TRIES = 5;
const FIRST_WAIT_MS = 1000;
const MAX_WAIT_MS = 60_000;
const FORGET_MS = 3600_000;
const MAX_ACCOUNTS = 10_000;

interface Failures {
  count: number;
  /** No password is checked for the account before this time. */
  until: number;
  last: number;
}

export class LoginBackoff {
  readonly #now: () => number;
  readonly #accounts = new Map<string, Failures>();

  constructor(now: () => number) {
    this.#now = now;
  }

  /** Seconds before the account's password may be tried again; 0 when it may be now. */
  wait(user: string): number {
    const entry = this.#accounts.get(key(user));
    const left = entry ? entry.until - this.#now() : 0;
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /**
   * Seconds to wait before the account's password may be tried; 0 counts this try at once, as
   * a failure until `succeeded` clears it, so guesses sent in parallel (each waiting on the
   * password hash) cannot all slip in before the first is counted.
   */
  attempt(user: string): number {
    const left = this.wait(user);
    if (left === 0) this.failed(user);
    return left;
  }

  failed(user: string): void {
    const now = this.#now();
    const id = key(user);
    const old = this.#accounts.get(id);
    const count = (old && now - old.last < FORGET_MS ? old.count : 0) + 1;
    const extra = count - FREE_TRIES + 1;
    const until = extra > 0 ? now + Math.min(MAX_WAIT_MS, FIRST_WAIT_MS * 2 ** Math.min(extra - 1, 16)) : 0;
    // Re-inserted so the map's order is the order of last use: the oldest go first when full.
    this.#accounts.delete(id);
    // Full of accounts still held back: the newcomer is not remembered rather than one of them forgotten.
    if (this.#accounts.size >= MAX_ACCOUNTS && !this.#evict(now)) return;
    this.#accounts.set(id, { count, until, last: now });
  }

  succeeded(user: string): void {
    this.#accounts.delete(key(user));
  }

  /** Accounts remembered now. */
  get size(): number {
    return this.#accounts.size;
  }

  /** Makes room; never by forgetting an account that is waiting now (flooding with other names must not free it). */
  #evict(now: number): boolean {
    for (const [id, entry] of this.#accounts) if (now - entry.last >= FORGET_MS) this.#accounts.delete(id);
    for (const [id, entry] of this.#accounts) {
      if (this.#accounts.size < MAX_ACCOUNTS) break;
      if (entry.until <= now) this.#accounts.delete(id);
    }
    return this.#accounts.size < MAX_ACCOUNTS;
  }
}

/** Account names may differ only in case elsewhere (a directory, a front proxy): one counter for all spellings. */
function key(user: string): string {
  return user.trim().toLowerCase();
}
