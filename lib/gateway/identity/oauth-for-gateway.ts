// The authorization server as `hub_gateway` runs it: accounts and API tokens from the data
// dir, tool groups from the gateway config, and the public URL as the gateway knows it.
import type { IncomingMessage } from "node:http";
import type { GatewayConfig } from "../config/gateway-config.ts";
import type { AccountDirectory, RecordStore, TokenVerifier } from "../contracts/interfaces.ts";
import type { Logger } from "../../util/logger.ts";
import type { OAuthSettings } from "../oauth/gateway-settings.ts";
import type { OAuthServerOptions } from "../oauth/options.ts";
import { toolOfResource } from "../oauth/resources.ts";
import { OAuthServer } from "../oauth/server.ts";
import { readSecretFile } from "./secret-file.ts";

export interface GatewayOAuthOptions {
  readonly config: Pick<GatewayConfig, "tools">;
  readonly settings: OAuthSettings;
  readonly store: RecordStore;
  readonly accounts: AccountDirectory;
  /** Checks registration tokens (the gateway's API tokens). */
  readonly apiTokens: TokenVerifier;
  readonly publicUrl: () => string;
  readonly logger?: Logger;
  /** Registration and sign-in limits counted in the shared store. */
  readonly sharedLimits?: boolean;
}

export function gatewayAuthorizationServer(options: GatewayOAuthOptions): OAuthServer {
  const { config, settings } = options;
  return new OAuthServer({
    publicUrl: options.publicUrl,
    store: options.store,
    accounts: options.accounts,
    registration: {
      ...(settings.registrationAllowlist ? { allowlist: settings.registrationAllowlist } : {}),
      groups: settings.registrationGroups,
      verifier: options.apiTokens,
    },
    ...(settings.trustedUserHeader ? { trustedUserHeader: settings.trustedUserHeader } : {}),
    ...identitySecrets(settings),
    ...(settings.assertionIssuers?.length ? { assertionIssuers: settings.assertionIssuers } : {}),
    resourceAccess: (resource, groups) => {
      // The hub connector, `{hub}/mcp`, is open to every account: it lists each person's own tools.
      if (resource === undefined || resource === `${options.publicUrl()}/mcp`) return true;
      const tool = toolOfResource(options.publicUrl(), resource);
      const spec = tool !== undefined && Object.hasOwn(config.tools, tool) ? config.tools[tool] : undefined;
      if (!spec) return false;
      return spec.groups.length === 0 || spec.groups.some((g) => groups.includes(g));
    },
    ...(settings.clientAddressHeader ? { clientIp: forwardedAddress(settings.clientAddressHeader.toLowerCase()) } : {}),
    ...(options.logger ? { logger: options.logger } : {}),
    ...(options.sharedLimits ? { sharedLimits: true } : {}),
  });
}

/** The last address in the proxy's header (the one the proxy itself added), else the socket's. */
export function forwardedAddress(header: string): (req: IncomingMessage) => string {
  return (req) => {
    const value = req.headers[header];
    const last = (Array.isArray(value) ? value.join(",") : (value ?? "")).split(",").pop()?.trim();
    return last ? last.slice(0, 64) : (req.socket.remoteAddress ?? "unknown");
  };
}

/**
 * The identity settings with their secrets read from their files (owner-only, see
 * secret-file.ts); throws ConfigError naming the key. `hub_gateway` calls it once at start-up
 * too, so a bad file is a config error and not a failed first sign-in.
 */
export function identitySecrets(settings: OAuthSettings): Pick<OAuthServerOptions, "identity" | "frontEnd"> {
  const { identity, frontEnd } = settings;
  return {
    ...(identity ? { identity: { ...identity, clientSecret: readSecretFile(identity.clientSecretFile, "oauth.identity.clientSecretFile") } } : {}),
    ...(frontEnd ? { frontEnd: { ...frontEnd, secret: readSecretFile(frontEnd.secretFile, "oauth.frontEnd.secretFile") } } : {}),
  };
}
