// The token endpoint (RFC 6749 section 3.2) and token revocation (RFC 7009). Every answer,
// errors included, is JSON with Cache-Control: no-store.
import type { IncomingMessage, ServerResponse } from "node:http";
import { mediaTypeOf } from "../../http/content-type.ts";
import type { ClientDirectory } from "./clients.ts";
import type { Grants } from "./grants.ts";
import { readBody, sendJson, sendOAuthError, singleParams } from "./http-io.ts";
import type { AssertionGrants } from "./id-jag.ts";
import { readAccessToken } from "./jws.ts";
import { JWT_BEARER } from "./metadata.ts";

async function formParams(req: IncomingMessage): Promise<Map<string, string> | undefined> {
  const text = await readBody(req);
  const type = mediaTypeOf(req.headers["content-type"]);
  if (type !== "application/json") return singleParams(text);
  // Some clients post JSON; accept flat string fields only.
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
    const out = new Map<string, string>();
    for (const [key, value] of Object.entries(body)) if (typeof value === "string") out.set(key, value);
    return out;
  } catch {
    return undefined;
  }
}

export async function tokenEndpoint(
  req: IncomingMessage,
  res: ServerResponse,
  clients: ClientDirectory,
  grants: Grants,
  assertions?: AssertionGrants,
): Promise<void> {
  const params = await formParams(req);
  if (!params) return sendOAuthError(res, "invalid_request", "the body must be a form with each parameter once");
  const auth = await clients.authenticate(params, req.headers.authorization);
  if (!auth.ok) {
    const basic = req.headers.authorization?.toLowerCase().startsWith("basic ");
    return sendOAuthError(res, auth.error, auth.description, basic ? { "WWW-Authenticate": 'Basic realm="hub"' } : {});
  }
  const grantType = params.get("grant_type");
  let result;
  if (grantType === "authorization_code") result = await grants.redeemCode(auth.client, params);
  else if (grantType === "refresh_token") result = await grants.refresh(auth.client, params);
  else if (grantType === JWT_BEARER && assertions) {
    const exchanged = await assertions.exchange(auth.client, params);
    if (!exchanged.ok) return sendOAuthError(res, exchanged.error, exchanged.description);
    return sendJson(res, 200, exchanged.tokens);
  } else return sendOAuthError(res, "unsupported_grant_type", `grant_type must be one of: ${supported(assertions)}`);
  if (!result.ok) return sendOAuthError(res, result.error, result.description);
  sendJson(res, 200, result.tokens);
}

export async function revocationEndpoint(req: IncomingMessage, res: ServerResponse, clients: ClientDirectory, grants: Grants): Promise<void> {
  const params = await formParams(req);
  if (!params) return sendOAuthError(res, "invalid_request", "the body must be a form with each parameter once");
  const auth = await clients.authenticate(params, req.headers.authorization);
  if (!auth.ok) return sendOAuthError(res, auth.error, auth.description);
  const token = params.get("token");
  if (!token) return sendOAuthError(res, "invalid_request", "token is required");
  if (!(await grants.revokeRefreshToken(auth.client, token))) {
    const claims = readAccessToken(token, await grants.signingKey());
    if (claims && claims.client_id === auth.client.client_id) await grants.revokeGrant(claims.gid);
  }
  // RFC 7009 section 2.2: unknown and already revoked tokens are answered the same way.
  sendJson(res, 200, {});
}

function supported(assertions: AssertionGrants | undefined): string {
  return ["authorization_code", "refresh_token", ...(assertions ? [JWT_BEARER] : [])].join(", ");
}
