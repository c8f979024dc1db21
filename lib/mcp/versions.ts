// Every protocol-version difference lives here.

export const SUPPORTED_VERSIONS = ["2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25"] as const;
export type ProtocolVersion = (typeof SUPPORTED_VERSIONS)[number];
export const LATEST_VERSION: ProtocolVersion = "2025-11-25";
/** The discovery document always names the first published revision, whatever a session negotiates. */
export const DISCOVERY_VERSION = "2024-11-05";

export function isSupportedVersion(value: unknown): value is ProtocolVersion {
  return typeof value === "string" && (SUPPORTED_VERSIONS as readonly string[]).includes(value);
}

/** A supported requested version is echoed; anything else gets the latest. */
export function negotiateVersion(requested: unknown): ProtocolVersion {
  return isSupportedVersion(requested) ? requested : LATEST_VERSION;
}
