// Redirect URI rules. Registered redirects match exactly, except loopback ones, which match
// on any port (RFC 8252 section 7.3: native apps such as VS Code pick a free port per sign-in).
import { isLoopbackHost } from "../../http/loopback.ts";

/** The hosts where a redirect is allowed without a registration token, as URL prefixes. */
export const DEFAULT_REDIRECT_ALLOWLIST: readonly string[] = [
  "https://claude.ai/",
  "https://claude.com/",
  "https://chatgpt.com/connector_platform_oauth_redirect",
  "https://vscode.dev/",
  "https://insiders.vscode.dev/",
];

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

export function isLoopbackRedirect(uri: string): boolean {
  const url = parse(uri);
  return url !== undefined && url.protocol === "http:" && isLoopbackHost(url.hostname);
}

/**
 * Why a redirect URI can't be registered, or undefined when it can. https anywhere, http only
 * on loopback, private-use schemes (`vscode:`, `cursor:`) for native apps; never a fragment.
 */
export function redirectProblem(uri: unknown): string | undefined {
  if (typeof uri !== "string" || uri.length === 0 || uri.length > 2000) return "redirect URIs must be non-empty strings";
  const url = parse(uri);
  if (!url) return "redirect URIs must be absolute URLs";
  if (url.hash !== "" || uri.includes("#")) return "redirect URIs must not have a fragment";
  if (url.protocol === "http:" && !isLoopbackRedirect(uri)) return "http redirect URIs must be loopback";
  if (url.protocol === "javascript:" || url.protocol === "data:" || url.protocol === "file:") return "redirect URI scheme not allowed";
  return undefined;
}

/** The registered form of a loopback redirect without its port, for matching and dedupe. */
export function withoutLoopbackPort(uri: string): string {
  if (!isLoopbackRedirect(uri)) return uri;
  const url = new URL(uri);
  url.port = "";
  return url.href;
}

export function redirectMatches(registered: readonly string[], requested: string): boolean {
  if (registered.includes(requested)) return true;
  if (!isLoopbackRedirect(requested)) return false;
  const portless = withoutLoopbackPort(requested);
  return registered.some((uri) => isLoopbackRedirect(uri) && withoutLoopbackPort(uri) === portless);
}

/** Whether a redirect qualifies for anonymous registration: loopback, or at or under an allowlisted path. */
export function isAnonymousRedirect(uri: string, allowlist: readonly string[]): boolean {
  if (isLoopbackRedirect(uri)) return true;
  const url = parse(uri);
  if (!url || url.protocol !== "https:") return false;
  return allowlist.some((prefix) => {
    const allowed = parse(prefix);
    return allowed !== undefined && allowed.protocol === url.protocol && allowed.host === url.host && underPath(url.pathname, allowed.pathname);
  });
}

/**
 * Whether `path` is `prefix` or lies below it. Anchored at a segment boundary: the prefix
 * `/connector` must not let `/connectorEVIL/…` (any page of the same site) register.
 */
function underPath(path: string, prefix: string): boolean {
  if (prefix.endsWith("/")) return path.startsWith(prefix);
  return path === prefix || path.startsWith(`${prefix}/`);
}

/** Adds `params` to a redirect URI, keeping its own query (RFC 6749 section 3.1.2). */
export function redirectWith(uri: string, params: Record<string, string | undefined>): string {
  const url = new URL(uri);
  for (const [key, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(key, value);
  return url.href;
}
