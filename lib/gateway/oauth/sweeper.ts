// Removes records that can no longer mean anything: expired codes, requests, sessions,
// refresh tokens, sign-ins at the identity provider and used assertions, revoked or ended grants, and clients never used within a day. Runs at most once an
// hour per process, in the background; several processes sweeping at once is harmless
// because every step is a delete of something already dead.
import type { RecordStore } from "../contracts/interfaces.ts";
import { REQUESTS } from "./authorize.ts";
import { SESSIONS } from "./browser-session.ts";
import { CLIENTS, type ClientRecord } from "./clients.ts";
import { CODES, CODE_USES, GRANT_USES, GRANTS, REFRESH, type GrantRecord } from "./grants.ts";
import { CODE_LIFETIME_MS, UNUSED_CLIENT_LIFETIME_MS, type OAuthConfig } from "./options.ts";
import { LIMITS } from "./rate-limit.ts";
import { DEDUPE } from "./registration.ts";
import { ASSERTION_USES } from "./id-jag.ts";
import { UPSTREAM } from "./upstream-sign-in.ts";

export const SWEEP_INTERVAL_MS = 3600_000;

export class Sweeper {
  readonly #config: OAuthConfig;
  #last = Number.NEGATIVE_INFINITY;
  #running: Promise<number> | undefined;

  constructor(config: OAuthConfig) {
    this.#config = config;
  }

  /** Starts a sweep when the last one is an interval old; its promise never rejects. */
  maybeSweep(): Promise<number> | undefined {
    const now = this.#config.now();
    if (this.#running || now - this.#last < SWEEP_INTERVAL_MS) return undefined;
    this.#last = now;
    this.#running = this.sweep()
      .catch((err: unknown) => {
        this.#config.logger.warn("oauth sweep failed", { error: err instanceof Error ? err.name : "unknown" });
        return 0;
      })
      .finally(() => (this.#running = undefined));
    return this.#running;
  }

  /** One sweep; answers how many records it removed. */
  async sweep(): Promise<number> {
    const { store } = this.#config;
    const now = this.#config.now();
    let removed = 0;
    const drop = async <T>(collection: string, dead: (value: T) => boolean): Promise<void> => {
      for (const { id, value } of await store.list<T>(collection)) {
        if (dead(value)) {
          await store.delete(collection, id);
          removed += 1;
        }
      }
    };
    const expired = (value: { expires_at?: number }): boolean => typeof value.expires_at !== "number" || value.expires_at <= now;
    await drop(REQUESTS, expired);
    await drop(CODES, expired);
    await drop(SESSIONS, expired);
    await drop(REFRESH, expired);
    await drop(UPSTREAM, expired);
    await drop(ASSERTION_USES, expired);
    await drop<{ at?: number }>(CODE_USES, (v) => typeof v.at !== "number" || v.at + 2 * CODE_LIFETIME_MS <= now);
    await drop<GrantRecord>(GRANTS, (g) => g.revoked === true || (typeof g.expires_at === "number" && g.expires_at <= now));
    await drop<ClientRecord>(CLIENTS, (c) => !c.used && c.client_id_issued_at * 1000 + UNUSED_CLIENT_LIFETIME_MS <= now);
    await dropDanglingDedupe(store, () => (removed += 1));
    await dropDanglingUses(store, () => (removed += 1));
    // Shared rate-limit windows (one per source address) would otherwise pile up in the store.
    const windowMs = Math.max(SWEEP_INTERVAL_MS, this.#config.registrationWindowMs);
    for (const collection of Object.values(LIMITS)) await drop<{ start?: number }>(collection, (w) => typeof w.start !== "number" || w.start + windowMs <= now);
    return removed;
  }
}

async function dropDanglingDedupe(store: RecordStore, count: () => void): Promise<void> {
  for (const { id, value } of await store.list<{ client_id: string }>(DEDUPE)) {
    if (!(await store.get(CLIENTS, value.client_id))) {
      await store.delete(DEDUPE, id);
      count();
    }
  }
}

/** A grant's last use outlives no grant: the sweep drops revoked grants, then their uses. */
async function dropDanglingUses(store: RecordStore, count: () => void): Promise<void> {
  for (const { id } of await store.list(GRANT_USES)) {
    if (!(await store.get(GRANTS, id))) {
      await store.delete(GRANT_USES, id);
      count();
    }
  }
}
