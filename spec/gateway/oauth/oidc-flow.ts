// The identity specs' shared walk: a hub whose sign-in page offers the spec's real OpenID
// provider, and a person signing in through it with nothing but HTTP: the hub's page, the
// provider's login and consent forms, back to the hub's consent, to the client's redirect.
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";
import type { RunningGateway } from "../../../lib/gateway/server.ts";
import type { FileRecordStore } from "../../../lib/gateway/store/file-record-store.ts";
import { authorizeUrl, pkcePair, registerPublic, token, type Tokens } from "./harness.ts";
import { startHub } from "./hub.ts";
import { HttpBrowser } from "./http-browser.ts";
import { CLIENT_ID, CLIENT_SECRET, startProvider, type SpecProvider } from "./oidc-provider.ts";

export const REDIRECT = "http://127.0.0.1:5555/callback";

export interface IdentityHub {
  gateway: RunningGateway;
  store: FileRecordStore;
  provider: SpecProvider;
  /** The secret file's folder, for specs that add files of their own. */
  dir: string;
}

/** A secret file as an operator makes one: owner-only. */
export async function secretFile(dir: string, name: string, secret: string): Promise<string> {
  const file = join(dir, name);
  await writeFile(file, `${secret}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}

export async function startIdentityHub(t: TestContext, identity: Record<string, unknown> = {}, oauth: Record<string, unknown> = {}): Promise<IdentityHub> {
  const provider = await startProvider(t);
  const dir = await mkdtemp(join(tmpdir(), "hub-oidc-"));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const clientSecretFile = await secretFile(dir, "oidc-secret", CLIENT_SECRET);
  const { gateway, store } = await startHub(t, {
    identity: { issuer: provider.issuer, clientId: CLIENT_ID, clientSecretFile, label: "Spec Hub", accounts: "create", ...identity },
    ...oauth,
  });
  provider.configure(`${gateway.publicUrl}/developer/oauth/upstream/callback`);
  return { gateway, store, provider, dir };
}

export interface Landing {
  /** The last page shown when the walk did not reach the client's redirect. */
  readonly status: number;
  readonly html: string;
  readonly code?: string;
}

/** From the authorization URL through the provider (as `login`) to the client's redirect. */
export async function walkSignIn(browser: HttpBrowser, authorizationUrl: string, login: string, redirect = REDIRECT): Promise<Landing> {
  const atClient = (url: URL): boolean => url.href.startsWith(redirect);
  let step = await browser.follow(authorizationUrl);
  for (let i = 0; i < 8; i++) {
    if (atClient(step.url)) return { status: 303, html: "", code: step.url.searchParams.get("code") ?? undefined };
    const html = await step.res.text();
    const page = { url: step.url, html };
    const provider = /id="provider" href="([^"]*)"/.exec(html);
    if (provider) step = await browser.follow(new URL(provider[1]!.replace(/&#38;/g, "&"), step.url), {}, atClient);
    else if (html.includes('name="prompt" value="login"')) step = await browser.submit(page, { login, password: "any" }, atClient);
    else if (html.includes('name="prompt" value="consent"')) step = await browser.submit(page, {}, atClient);
    else if (html.includes('value="approve"')) step = await browser.submit(page, { decision: "approve" }, atClient);
    else return { status: step.res.status, html };
  }
  throw new Error("the sign-in went round in circles");
}

/** A registered client signing `login` in for `resource`, and the tokens it gets. */
export async function signInThroughProvider(hub: IdentityHub, login: string, resource?: string, browser = new HttpBrowser()): Promise<Tokens | Landing> {
  const base = hub.gateway.publicUrl;
  const clientId = await registerPublic(base, REDIRECT);
  const { verifier, challenge } = pkcePair();
  const url = authorizeUrl(base, {
    response_type: "code",
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: "S256",
    state: "client-state",
    resource,
  });
  const landing = await walkSignIn(browser, url, login);
  if (!landing.code) return landing;
  const res = await token(base, { grant_type: "authorization_code", client_id: clientId, code: landing.code, redirect_uri: REDIRECT, code_verifier: verifier });
  if (res.status !== 200) throw new Error(`token answered ${res.status}`);
  return (await res.json()) as Tokens;
}

/** One MCP ping with the token: the status the hub answers. */
export async function ping(url: string, accessToken: string): Promise<number> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", authorization: `Bearer ${accessToken}` },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "initialize",
      params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "spec", version: "1" } },
    }),
  });
  await res.arrayBuffer();
  return res.status;
}
