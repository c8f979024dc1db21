// Serving on a hub session: with the hub's reverse proxy (server on 8001, proxy
// on 8000), with hubmcp's own proxy, or alone on 8000 stripping the prefix itself.
import type { RunningServer } from "../http/listen.ts";
import { startReverseProxy } from "../proxy/reverse-proxy.ts";
import type { ServerLike } from "./app-loader.ts";
import type { ProxyChoice } from "./args.ts";
import { spawnGroup, type ChildProcessHandle } from "../util/process-group.ts";
import { waitForPort } from "./child.ts";
import { redactCookie, type HubSession } from "./hub.ts";
import { externalProxyCommand, findExternalProxy } from "./reverse-proxy-lookup.ts";
import { requireSecret } from "../http/session-secret.ts";

export interface HubPorts {
  /** The public port (the proxy's, or the server's when it runs alone): 8000. */
  proxyPort: number;
  /** The server's port behind a proxy: 8001. */
  serverPort: number;
}

/** Spec ports, overridable for tests and unusual hubs through HUBMCP_PROXY_PORT / HUBMCP_SERVER_PORT. */
export function hubPorts(env: Readonly<Record<string, string | undefined>>): HubPorts | string {
  const read = (name: string, fallback: number): number | string => {
    const text = env[name];
    if (text === undefined || text === "") return fallback;
    return /^\d{1,5}$/.test(text) && Number(text) <= 65535 ? Number(text) : `${name} must be a port number (0-65535)`;
  };
  const proxyPort = read("HUBMCP_PROXY_PORT", 8000);
  const serverPort = read("HUBMCP_SERVER_PORT", 8001);
  if (typeof proxyPort === "string") return proxyPort;
  if (typeof serverPort === "string") return serverPort;
  return { proxyPort, serverPort };
}

export interface HubRun {
  server: RunningServer;
  /** Human lines for stderr describing the arrangement. */
  notes: string[];
  /** Settles when the external proxy exits on its own. */
  proxyGone: Promise<number | null> | null;
  /** Stops whatever fronts the server (child or built-in proxy). */
  stopProxy(): Promise<void>;
}

export interface HubRequest {
  app: ServerLike;
  hub: HubSession;
  host: string;
  proxy: ProxyChoice;
  ports: HubPorts;
  debug: boolean;
  env: NodeJS.ProcessEnv;
  /** The per-session secret every request must carry (a gateway's tool session), if any. */
  secret?: string;
  /** Output of the external proxy. */
  onProxyOutput(text: string): void;
}

/** start_mcp's hub mode could not start (its reverse proxy); `listen` errors (port in use) propagate as they are. */
export class HubStartError extends Error {
  readonly code = "HUBMCP_HUB_START";
}

/**
 * Behind a proxy the server still learns its public mount path: the proxy has already
 * stripped it from requests (the server strips only what is present), and the paths the
 * server advertises (the SSE `endpoint` event) then point through the proxy.
 */
function listenBehindProxy(req: HubRequest): Promise<RunningServer> {
  return guarded(req, req.app.listen({ host: req.host, port: req.ports.serverPort, pathPrefix: req.hub.pathPrefix, allowedOrigins: proxyOrigins(req) }));
}

/** The server, checking the session secret from its first request on (no I/O runs between listening and this). */
export async function guarded(req: { secret?: string }, listening: Promise<RunningServer>): Promise<RunningServer> {
  const server = await listening;
  if (req.secret !== undefined) requireSecret(server.httpServer, req.secret);
  return server;
}

/** Browser pages served through the hub's proxy carry its origin: the server lets them in. */
function proxyOrigins(req: HubRequest): string[] {
  return URL.canParse(req.hub.proxyUrl) ? [new URL(req.hub.proxyUrl).origin] : [];
}

async function withExternal(req: HubRequest, pkg: string): Promise<HubRun> {
  const server = await listenBehindProxy(req);
  const command = externalProxyCommand(pkg, { listenPort: req.ports.proxyPort, forwardPort: server.port }, req.debug);
  const child: ChildProcessHandle = spawnGroup("bash", ["-lc", command], { env: req.env, onStdout: req.onProxyOutput });
  if (req.ports.proxyPort !== 0 && !(await waitForPort(req.ports.proxyPort, child.exited))) {
    await child.stop();
    await server.close();
    throw new HubStartError(`reverse proxy ${pkg} did not start on port ${req.ports.proxyPort}`);
  }
  return {
    server,
    notes: [`server on port ${server.port}; reverse proxy ${pkg} (pid ${child.pid}) on port ${req.ports.proxyPort}`],
    proxyGone: child.exited,
    stopProxy: () => child.stop(),
  };
}

async function withBuiltin(req: HubRequest): Promise<HubRun> {
  const server = await listenBehindProxy(req);
  try {
    const proxy = await startReverseProxy({
      target: `http://127.0.0.1:${server.port}`,
      pathPrefix: req.hub.pathPrefix,
      host: req.host,
      port: req.ports.proxyPort,
      allowedHosts: proxyOrigins(req).map((origin) => new URL(origin).host),
    });
    return {
      server,
      notes: [`server on port ${server.port}; built-in reverse proxy on port ${proxy.port}`],
      proxyGone: null,
      stopProxy: () => proxy.close(),
    };
  } catch (err) {
    await server.close();
    throw err;
  }
}

async function alone(req: HubRequest): Promise<HubRun> {
  const server = await guarded(
    req,
    req.app.listen({ host: req.host, port: req.ports.proxyPort, pathPrefix: req.hub.pathPrefix, allowedOrigins: proxyOrigins(req) }),
  );
  return {
    server,
    notes: [`no reverse proxy; server on port ${server.port} strips ${redactCookie(req.hub.pathPrefix)}`],
    proxyGone: null,
    stopProxy: async () => {},
  };
}

export async function startHub(req: HubRequest): Promise<HubRun> {
  switch (req.proxy) {
    case "builtin":
      return withBuiltin(req);
    case "none":
      return alone(req);
    case "external":
    case "auto": {
      const pkg = await findExternalProxy(req.env);
      if (pkg) return withExternal(req, pkg);
      if (req.proxy === "external") throw new HubStartError("--proxy external: no wrwroxy package found through `use`");
      return alone(req);
    }
  }
}
