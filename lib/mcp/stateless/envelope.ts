// The per-request `_meta` envelope of MCP 2026-07-28 and its checks. Which revision serves a
// message is decided in ../revision.ts.
import type { Refusal } from "../outcome.ts";
import { headerMismatch, invalidParams, unsupportedVersion, type CapabilityMap, type StatelessErrorBody, refusalOf } from "./errors.ts";
import { isRecord } from "../../util/guards.ts";
import { META } from "../extension-ids.ts";

export { META };

/** The stateless revisions this module understands, newest first. */
export const STATELESS_VERSIONS = ["2026-07-28"] as const;

export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;
export type StatelessLogLevel = (typeof LOG_LEVELS)[number];

export interface RequestEnvelope {
  protocolVersion: string;
  clientCapabilities: CapabilityMap;
  clientInfo?: { name: string; version: string };
  /** Absent means: send no `notifications/message` for this request. */
  logLevel?: StatelessLogLevel;
  progressToken?: string | number;
}

export type EnvelopeCheck = { ok: true; envelope: RequestEnvelope } | { ok: false; refusal: Refusal; error: StatelessErrorBody };

/** The `_meta` object of a request's params, if it is one. */
export function requestMeta(params: unknown): Record<string, unknown> | undefined {
  const meta = isRecord(params) ? params._meta : undefined;
  return isRecord(meta) ? meta : undefined;
}

export function isStatelessVersion(value: unknown): boolean {
  return typeof value === "string" && (STATELESS_VERSIONS as readonly string[]).includes(value);
}

/**
 * Validates the envelope of a 2026-era request, in the order the revision implies: the
 * version header must be present, the required `_meta` keys present (-32602), the header
 * must equal `_meta` (-32020), and the version must be one we serve (-32022). Every
 * rejection is a refusal (HTTP 400). `protocolHeader` is undefined on transports without headers (stdio).
 */
export function checkEnvelope(
  params: unknown,
  protocolHeader: string | undefined,
  supported: readonly string[] = STATELESS_VERSIONS,
  http = true,
): EnvelopeCheck {
  const reject = (error: StatelessErrorBody): EnvelopeCheck => ({ ok: false, refusal: refusalOf(error.code) ?? "bad-envelope", error });
  const header = protocolHeader?.trim();
  if (http && !header) return reject(headerMismatch("MCP-Protocol-Version header is missing"));
  const meta = requestMeta(params);
  if (!meta) return reject(invalidParams("Invalid params: _meta is required"));
  const missing = [META.protocolVersion, META.clientCapabilities].filter((key) => meta[key] === undefined);
  if (missing.length > 0) return reject(invalidParams(`Invalid params: _meta is missing ${missing.join(", ")}`));
  const version = meta[META.protocolVersion];
  if (typeof version !== "string") return reject(invalidParams("Invalid params: _meta protocolVersion must be a string"));
  if (http && version !== header) return reject(headerMismatch("MCP-Protocol-Version header does not match _meta protocolVersion"));
  if (!supported.includes(version)) return reject(unsupportedVersion(supported, version));
  const caps = meta[META.clientCapabilities];
  if (!isRecord(caps)) return reject(invalidParams("Invalid params: _meta clientCapabilities must be an object"));
  const envelope: RequestEnvelope = { protocolVersion: version, clientCapabilities: caps };
  const info = meta[META.clientInfo];
  if (isRecord(info) && typeof info.name === "string" && typeof info.version === "string") {
    envelope.clientInfo = { name: info.name, version: info.version };
  }
  const level = meta[META.logLevel];
  if (level !== undefined) {
    if (!(LOG_LEVELS as readonly unknown[]).includes(level)) return reject(invalidParams("Invalid params: unknown _meta logLevel"));
    envelope.logLevel = level as StatelessLogLevel;
  }
  const token = meta.progressToken;
  if (typeof token === "string" || (typeof token === "number" && Number.isFinite(token))) envelope.progressToken = token;
  return { ok: true, envelope };
}

/**
 * Methods of 2025-11-25 that 2026-07-28 removed: a 2026 request for one gets 404 and
 * -32601, as any unknown method does. Listed so the dispatcher can refuse them even though
 * the 2025 path still registers handlers for them.
 */
export const REMOVED_METHODS: ReadonlySet<string> = new Set([
  "initialize",
  "ping",
  "logging/setLevel",
  "resources/subscribe",
  "resources/unsubscribe",
  "notifications/initialized",
  "tasks/result",
  "tasks/list",
]);
