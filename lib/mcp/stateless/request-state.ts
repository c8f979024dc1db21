// `requestState` for multi-round-trip requests (MCP 2026-07-28, "MRTR"): the state a server
// hands the client with an `input_required` result and gets back on the retry. The client
// controls it, so it is sealed with HMAC-SHA256 under a per-server key and bound to an expiry,
// the method, a digest of the request's salient parameters and (when known) the principal.
// A token that fails any check is refused; nothing inside it is trusted before the MAC is.
import { createHash, randomBytes } from "node:crypto";
import { hmac, safeEqual } from "../../util/secrets.ts";

const VERSION = "s1";
/** Ten minutes: long enough for a person to answer a form, short enough to bound replay. */
export const DEFAULT_STATE_TTL_MS = 10 * 60_000;
/** Tokens beyond this are refused unread; recorded answers must stay small. */
export const MAX_STATE_CHARS = 64 * 1024;

/** What a token is bound to: the retry must present the same. */
export interface StateBinding {
  method: string;
  /** `paramsDigest(params)` of the original request. */
  digest: string;
  /** Who made the request (a user id, a token hash); omit on unauthenticated servers. */
  principal?: string;
}

export type StateRefusal = "malformed" | "bad-signature" | "expired" | "wrong-request" | "too-large";

export type OpenedState<T> = { ok: true; state: T } | { ok: false; reason: StateRefusal };

export interface RequestStateCodecOptions {
  /** At least 32 bytes; a random key is made per codec when omitted (state then dies with the process). */
  key?: Buffer;
  ttlMs?: number;
  /** Injectable clock, for specs. */
  now?: () => number;
}

export interface RequestStateCodec {
  seal(state: unknown, binding: StateBinding): string;
  open<T = unknown>(token: unknown, binding: StateBinding): OpenedState<T>;
}

interface Sealed {
  m: string;
  d: string;
  p: string | null;
  e: number;
  s: unknown;
}

/** A stable JSON text: object keys sorted, so equal values digest equally whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value) ?? "null";
}

/** Parameters that do not identify the request: they change between rounds by design. */
const ROUND_FIELDS = new Set(["_meta", "inputResponses", "requestState"]);

/** SHA-256 over the request's salient params (name, uri, arguments…), excluding per-round fields. */
export function paramsDigest(params: Record<string, unknown> | undefined): string {
  const salient = Object.fromEntries(Object.entries(params ?? {}).filter(([key]) => !ROUND_FIELDS.has(key)));
  return createHash("sha256").update(canonicalJson(salient)).digest("base64url");
}

/** The principal is stored hashed, so a token never carries a user id in the clear. */
const principalTag = (principal: string | undefined): string | null =>
  principal === undefined ? null : createHash("sha256").update(principal).digest("base64url");

export function createRequestStateCodec(options: RequestStateCodecOptions = {}): RequestStateCodec {
  const key = options.key ?? randomBytes(32);
  if (key.length < 32) throw new TypeError("requestState key must be at least 32 bytes");
  const ttlMs = options.ttlMs ?? DEFAULT_STATE_TTL_MS;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new TypeError("requestState ttlMs must be a positive integer");
  const now = options.now ?? Date.now;
  const mac = (body: string): string => hmac(key, `${VERSION}.${body}`);

  return {
    seal(state, binding) {
      const sealed: Sealed = { m: binding.method, d: binding.digest, p: principalTag(binding.principal), e: now() + ttlMs, s: state };
      const body = Buffer.from(JSON.stringify(sealed), "utf8").toString("base64url");
      return `${VERSION}.${body}.${mac(body)}`;
    },
    open<T>(token: unknown, binding: StateBinding): OpenedState<T> {
      if (typeof token !== "string") return { ok: false, reason: "malformed" };
      if (token.length > MAX_STATE_CHARS) return { ok: false, reason: "too-large" };
      const parts = token.split(".");
      if (parts.length !== 3 || parts[0] !== VERSION) return { ok: false, reason: "malformed" };
      const [, body = "", signature = ""] = parts;
      if (!/^[A-Za-z0-9_-]+$/.test(body) || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return { ok: false, reason: "malformed" };
      if (!safeEqual(signature, mac(body))) return { ok: false, reason: "bad-signature" };
      let sealed: Sealed;
      try {
        sealed = JSON.parse(Buffer.from(body, "base64url").toString("utf8")) as Sealed;
      } catch {
        return { ok: false, reason: "malformed" };
      }
      if (typeof sealed.e !== "number" || now() > sealed.e) return { ok: false, reason: "expired" };
      if (sealed.m !== binding.method || sealed.d !== binding.digest || sealed.p !== principalTag(binding.principal)) {
        return { ok: false, reason: "wrong-request" };
      }
      return { ok: true, state: sealed.s as T };
    },
  };
}
