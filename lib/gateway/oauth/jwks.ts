// An issuer's published keys (JWKS), fetched once and kept. A token naming a key we don't have
// makes us fetch again (the issuer rotated its keys), but such fetches at most once per
// REFETCH_MS, so a stream of tokens with made-up `kid`s can't turn the hub into a load
// generator for the issuer.
import { createPublicKey, type KeyObject } from "node:crypto";
import { fetchJson } from "./fetch-json.ts";
import type { JwtHeader } from "./jwt-verify.ts";

export const REFETCH_MS = 60_000;
const MAX_KEYS = 50;

interface Jwk {
  readonly kid?: string;
  readonly kty?: string;
  readonly use?: string;
  readonly alg?: string;
}

export class RemoteKeySet {
  readonly #url: string;
  readonly #now: () => number;
  #keys: Array<{ jwk: Jwk; key: KeyObject }> = [];
  #fetched = false;
  /** When an unknown kid last made us fetch. */
  #forcedAt = Number.NEGATIVE_INFINITY;
  #fetching: Promise<void> | undefined;
  /** How many times the set was fetched: the rotation specs count on it. */
  fetches = 0;

  constructor(url: string, now: () => number = Date.now) {
    this.#url = url;
    this.#now = now;
  }

  /** The key the header names; throws ProviderUnreachable when the JWKS can't be fetched at all. */
  async key(header: JwtHeader): Promise<KeyObject | undefined> {
    if (!this.#fetched) await this.#refresh();
    let found = this.#find(header);
    if (!found && this.#now() - this.#forcedAt >= REFETCH_MS) {
      this.#forcedAt = this.#now();
      await this.#refresh();
      found = this.#find(header);
    }
    return found;
  }

  #find(header: JwtHeader): KeyObject | undefined {
    const usable = this.#keys.filter(({ jwk }) => (jwk.use === undefined || jwk.use === "sig") && (jwk.alg === undefined || jwk.alg === header.alg));
    if (header.kid !== undefined) return usable.find(({ jwk }) => jwk.kid === header.kid)?.key;
    // No kid: only unambiguous when the issuer publishes a single usable key.
    return usable.length === 1 ? usable[0]!.key : undefined;
  }

  #refresh(): Promise<void> {
    this.#fetching ??= this.#load().finally(() => (this.#fetching = undefined));
    return this.#fetching;
  }

  async #load(): Promise<void> {
    this.fetches++;
    const body = await fetchJson(this.#url);
    this.#fetched = true;
    const list = Array.isArray(body.keys) ? body.keys.slice(0, MAX_KEYS) : [];
    const keys: Array<{ jwk: Jwk; key: KeyObject }> = [];
    for (const jwk of list) {
      if (typeof jwk !== "object" || jwk === null || Array.isArray(jwk)) continue;
      try {
        const key = createPublicKey({ key: jwk as import("node:crypto").JsonWebKey, format: "jwk" });
        keys.push({ jwk: jwk as Jwk, key });
      } catch {
        // A key of a type Node can't read (or a malformed one) is skipped, not fatal.
      }
    }
    this.#keys = keys;
  }
}
