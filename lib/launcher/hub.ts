// Hub session facts from the environment and `$SESSIONDIR/resources` (docs/decisions.md,
// "Hub sessions"): the proxy path `/weber/<session>/<cookie>/<port % 1000>/` and the
// proxy URL `https://proxy.<hub host>` + that path. Pure: the caller reads the file.

export interface HubSession {
  session: string;
  sessionDir: string;
  /** "/weber/<session>/<cookie>/<port>" without a trailing slash. */
  pathPrefix: string;
  /** Public URL with a trailing slash. */
  proxyUrl: string;
}

export type HubDetection =
  | { kind: "local" }
  | { kind: "hub"; hub: HubSession }
  /** A session is set but its facts are unusable: run locally and say why. */
  | { kind: "fallback"; warning: string };

export interface HubEnv {
  session: string;
  sessionDir: string;
}

/** `SESSION` (or `SESSION_ID`) and `SESSIONDIR` (or `SESSION_DIR`), both non-empty. */
export function hubEnv(env: Readonly<Record<string, string | undefined>>): HubEnv | null {
  const session = env.SESSION || env.SESSION_ID;
  const sessionDir = env.SESSIONDIR || env.SESSION_DIR;
  return session && sessionDir ? { session, sessionDir } : null;
}

/** Lines of `key value`; later lines win; surrounding quotes are stripped from values. */
export function parseResources(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const raw of text.split(/\r?\n/)) {
    const m = /^\s*(\S+)\s+(.*?)\s*$/.exec(raw);
    if (!m || m[1]!.startsWith("#")) continue;
    out.set(m[1]!, m[2]!.replace(/^(["'])(.*)\1$/, "$2"));
  }
  return out;
}

function hubHost(hubUrl: string): string | null {
  try {
    // "nanohub.org" alone would parse as a scheme, so a bare host gets one first.
    return new URL(hubUrl.includes("://") ? hubUrl : `https://${hubUrl}`).hostname || null;
  } catch {
    return null;
  }
}

/** `resourcesText` is the file's content, or null when it could not be read. */
export function detectHub(env: Readonly<Record<string, string | undefined>>, resourcesText: string | null): HubDetection {
  const found = hubEnv(env);
  if (!found) return { kind: "local" };
  if (resourcesText === null) return { kind: "fallback", warning: "hub session resources file not readable; running locally" };
  const res = parseResources(resourcesText);
  const hubUrl = res.get("hub_url");
  const portText = res.get("filexfer_port");
  const cookie = res.get("filexfer_cookie");
  const missing = [!hubUrl && "hub_url", !portText && "filexfer_port", !cookie && "filexfer_cookie"].filter(Boolean);
  if (missing.length > 0) return { kind: "fallback", warning: `hub session resources lack ${missing.join(", ")}; running locally` };
  if (!/^\d+$/.test(portText!)) return { kind: "fallback", warning: "hub session filexfer_port is not an integer; running locally" };
  const host = hubHost(hubUrl!);
  if (!host) return { kind: "fallback", warning: "hub session hub_url has no host; running locally" };
  const pathPrefix = `/weber/${encodeURIComponent(found.session)}/${encodeURIComponent(cookie!)}/${Number(portText) % 1000}`;
  return {
    kind: "hub",
    hub: { session: found.session, sessionDir: found.sessionDir, pathPrefix, proxyUrl: `https://proxy.${host}${pathPrefix}/` },
  };
}

/** The path with the file-transfer cookie of a weber prefix hidden: it is a credential, not for logs. */
export function redactCookie(path: string): string {
  return path.replace(/^\/weber\/([^/]+)\/[^/]+(?=\/|$)/, "/weber/$1/…");
}
