// Dynamic client registration (RFC 7591). Lenient in what it accepts (unknown fields and
// scopes are ignored, unsupported auth methods are downgraded to `none`), strict in who
// may register: anonymous registration only for loopback or allowlisted redirects.
import type { IncomingMessage } from "node:http";
import { createHash } from "node:crypto";
import { hashSecret, randomToken } from "./crypto.ts";
import { CLIENTS, type AuthMethod, type ClientRecord } from "./clients.ts";
import type { OAuthConfig } from "./options.ts";
import { isAnonymousRedirect, redirectProblem, withoutLoopbackPort } from "./redirects.ts";
import { OAUTH_ERRORS, type OAuthCode } from "../../util/errors.ts";

export const DEDUPE = "oauth-client-dedupe";
const MAX_REDIRECTS = 10;

export interface Reply {
  readonly status: number;
  readonly body: Record<string, unknown>;
  readonly headers?: Record<string, string>;
}

function problem(error: OAuthCode, description: string, headers?: Record<string, string>): Reply {
  return { status: OAUTH_ERRORS[error], body: { error, error_description: description }, ...(headers ? { headers } : {}) };
}

export async function registerClient(config: OAuthConfig, req: IncomingMessage, text: string): Promise<Reply> {
  let metadata: unknown;
  try {
    metadata = JSON.parse(text);
  } catch {
    return problem("invalid_client_metadata", "the body must be a JSON object");
  }
  if (typeof metadata !== "object" || metadata === null || Array.isArray(metadata)) {
    return problem("invalid_client_metadata", "the body must be a JSON object");
  }
  const fields = metadata as Record<string, unknown>;
  const redirects = fields.redirect_uris;
  if (!Array.isArray(redirects) || redirects.length === 0 || redirects.length > MAX_REDIRECTS) {
    return problem("invalid_redirect_uri", `redirect_uris must list 1 to ${MAX_REDIRECTS} URIs`);
  }
  for (const uri of redirects) {
    const why = redirectProblem(uri);
    if (why) return problem("invalid_redirect_uri", why);
  }
  const redirectUris = [...new Set(redirects as string[])];
  const name = typeof fields.client_name === "string" ? fields.client_name.trim().slice(0, 100) : undefined;
  const method = authMethod(fields.token_endpoint_auth_method);

  if (!redirectUris.every((uri) => isAnonymousRedirect(uri, config.allowlist))) {
    const denied = await checkRegistrationToken(config, req.headers.authorization);
    if (denied) return denied;
  }

  const now = Math.floor(config.now() / 1000);
  const dedupeKey = method === "none" ? dedupeKeyOf(name, redirectUris) : undefined;
  if (dedupeKey) {
    const existing = await config.store.get<{ client_id: string }>(DEDUPE, dedupeKey);
    const record = existing && (await config.store.get<ClientRecord>(CLIENTS, existing.client_id));
    if (record && (record.used || (record.client_id_issued_at + 86_400) * 1000 > config.now())) {
      return { status: 201, body: publicView(record) };
    }
  }

  const record: ClientRecord = {
    client_id: randomToken(16),
    ...(name ? { client_name: name } : {}),
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    client_id_issued_at: now,
  };
  let secret: string | undefined;
  if (method !== "none") {
    secret = randomToken();
    record.secret_hash = hashSecret(secret);
  }
  await config.store.put(CLIENTS, record.client_id, record);
  if (dedupeKey) await config.store.put(DEDUPE, dedupeKey, { client_id: record.client_id });
  config.logger.info("oauth client registered", { client_id: record.client_id, method });
  const body = publicView(record);
  if (secret) Object.assign(body, { client_secret: secret, client_secret_expires_at: 0 });
  return { status: 201, body };
}

/** Unknown or unsupported methods become `none`: the client reads the method back from the reply. */
function authMethod(requested: unknown): AuthMethod {
  return requested === "client_secret_post" || requested === "client_secret_basic" ? requested : "none";
}

function dedupeKeyOf(name: string | undefined, redirects: readonly string[]): string {
  const normal = redirects.map(withoutLoopbackPort).sort();
  return createHash("sha256")
    .update(JSON.stringify([name ?? "", normal]))
    .digest("base64url");
}

function publicView(record: ClientRecord): Record<string, unknown> {
  return {
    client_id: record.client_id,
    client_id_issued_at: record.client_id_issued_at,
    ...(record.client_name ? { client_name: record.client_name } : {}),
    redirect_uris: record.redirect_uris,
    token_endpoint_auth_method: record.token_endpoint_auth_method,
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
  };
}

async function checkRegistrationToken(config: OAuthConfig, authorization: string | undefined): Promise<Reply | undefined> {
  const challenge = { "WWW-Authenticate": 'Bearer error="invalid_token"' };
  const token = /^Bearer\s+(\S+)$/i.exec(authorization ?? "")?.[1];
  if (!token || !config.registrationVerifier) {
    return problem("invalid_token", "registering a client with these redirect URIs needs a registration token", challenge);
  }
  const principal = await config.registrationVerifier.verify(token, config.publicUrl).catch(() => null);
  if (!principal) return problem("invalid_token", "the registration token is not valid", challenge);
  if (!principal.groups.some((group) => config.registrationGroups.includes(group))) {
    return problem("insufficient_scope", "this account may not register clients with these redirect URIs");
  }
  return undefined;
}
