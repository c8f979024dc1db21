// The start_mcp command line, parsed into a plain value. Nothing here prints or exits:
// the CLI turns a `usage` result into stderr text and exit status 2.
import { parseArgs } from "node:util";
import { isPathPrefix } from "../util/ready-line.ts";
import { isHostSyntax } from "../http/host-syntax.ts";

export type ProxyChoice = "auto" | "external" | "builtin" | "none";

export interface LaunchOptions {
  /** Absent when only Rappture tools are served. */
  app: string | undefined;
  /** tool.xml files published as tools (beside the app's, or alone). */
  rappture: string[];
  /** `--stdio-server -- CMD ARGS…`: a stdio MCP server run as a child and served (./stdio-server.ts). */
  stdioServer?: string[];
  /** Bind address; none: loopback locally, 0.0.0.0 on a hub session (where the hub's proxy must reach it). */
  host: string | undefined;
  port: number;
  pythonEnv: string | undefined;
  debug: boolean;
  proxy: ProxyChoice;
  /** Speak MCP over stdin/stdout instead of HTTP (how desktop assistants launch servers). */
  stdio: boolean;
  /** Host names clients use besides this machine's own (DNS-rebinding guard); none: the app's own setting. */
  allowedHosts: string[];
  /** Where async runs are kept across restarts (exported to the app as HUBMCP_STATE_DIR). */
  stateDir?: string;
  /** A mount path the server strips itself; given, no hub session is looked for. */
  pathPrefix?: string;
  /** Print the machine-readable ready line (../util/ready-line.ts) on stdout once listening. */
  readyLine: boolean;
  /** Restart the server whenever a file under the app's folder changes (./watch.ts). */
  watch?: boolean;
}

export type ParsedArgs = { kind: "run"; options: LaunchOptions } | { kind: "help" } | { kind: "version" } | { kind: "usage"; message: string };

export const USAGE = `usage: start_mcp --app FILE [options]
       start_mcp --rappture tool.xml [--rappture tool.xml ...] [options]
       start_mcp --stdio-server [options] -- COMMAND [ARGS...]
       start_mcp init [DIR]    write DIR/tsconfig.json: .ts apps there get hubmcp's types

Start an MCP tool server, locally or on a hub session.

options:
  -a, --app FILE          app file exporting \`server\` (.js .mjs .cjs .ts .mts)
      --rappture FILE     also publish this Rappture tool.xml (repeatable; no --app needed)
      --stdio-server      serve the stdio MCP server COMMAND (after --) runs, restarting it
                          after a crash; not with --app or --rappture
      --host HOST         bind address; 0.0.0.0 serves other machines     (default 127.0.0.1;
                          on a hub session 0.0.0.0)
      --allowed-host NAME a Host clients use besides this machine's names (repeatable)
  -p, --port PORT         port in local mode; 0 binds a free one         (default $MCP_PORT or 8000)
      --path-prefix PATH  also answer under PATH (e.g. /weber/S/C/P), stripping it; no hub
                          session is looked for
      --ready-line        once listening, print one JSON line on stdout before the others:
                          {"hubmcp":"ready","url":"http://HOST:PORT/","prefix":"PATH"}
                          (url: the bound address; prefix: "" without --path-prefix)
      --python-env NAME   run tools inside this conda environment
      --proxy MODE        hub reverse proxy: auto | external | builtin | none  (default auto)
      --stdio             speak MCP on stdin/stdout (for desktop assistants); no HTTP
      --state-dir DIR     keep async jobs and tasks here across restarts   (default $HUBMCP_STATE_DIR)
      --watch             restart the server when a file in the app's folder changes
      --debug             log one line per request on stderr
  -h, --help              show this help
      --version           print hubmcp's version
`;

const PROXY_CHOICES: readonly ProxyChoice[] = ["auto", "external", "builtin", "none"];

function parsePort(text: string, what: string): number | string {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) return `${what} must be a port number (0-65535)`;
  return Number(text);
}

export function parseLauncherArgs(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): ParsedArgs {
  // Everything after `--` is the stdio server's command line, never start_mcp's options.
  const split = argv.indexOf("--");
  const command = split === -1 ? null : argv.slice(split + 1);
  let values;
  try {
    ({ values } = parseArgs({
      args: split === -1 ? [...argv] : argv.slice(0, split),
      strict: true,
      allowPositionals: false,
      options: {
        app: { type: "string", short: "a" },
        rappture: { type: "string", multiple: true },
        "stdio-server": { type: "boolean" },
        host: { type: "string" },
        "allowed-host": { type: "string", multiple: true },
        port: { type: "string", short: "p" },
        "python-env": { type: "string" },
        proxy: { type: "string" },
        debug: { type: "boolean" },
        stdio: { type: "boolean" },
        "state-dir": { type: "string" },
        "path-prefix": { type: "string" },
        "ready-line": { type: "boolean" },
        watch: { type: "boolean" },
        help: { type: "boolean", short: "h" },
        version: { type: "boolean" },
      },
    }));
  } catch (err) {
    // parseArgs messages quote the offending option, never a value.
    return { kind: "usage", message: (err as Error).message.split("\n")[0]! };
  }
  if (values.help) return { kind: "help" };
  if (values.version) return { kind: "version" };
  const rappture = values.rappture ?? [];
  const stdioServer = values["stdio-server"] ?? false;
  if (stdioServer && (values.app !== undefined || rappture.length > 0))
    return { kind: "usage", message: "--stdio-server serves one stdio server: not with --app or --rappture" };
  if (stdioServer !== (command !== null)) return { kind: "usage", message: "--stdio-server takes the server's command after --, and only it does" };
  if (command !== null && (command.length === 0 || command[0] === "")) return { kind: "usage", message: "--stdio-server needs a command after --" };
  if (stdioServer && values.watch) return { kind: "usage", message: "--watch applies to --app and --rappture" };
  if (!values.app && rappture.length === 0 && !stdioServer) return { kind: "usage", message: "--app, --rappture or --stdio-server is required" };
  if (values.app === "" || rappture.includes("")) return { kind: "usage", message: "--app and --rappture must name a file" };
  const proxy = (values.proxy ?? "auto") as ProxyChoice;
  if (!PROXY_CHOICES.includes(proxy)) return { kind: "usage", message: "--proxy must be one of auto, external, builtin, none" };
  const portText = values.port ?? env.MCP_PORT ?? "8000";
  const port = parsePort(portText, values.port === undefined && env.MCP_PORT !== undefined ? "MCP_PORT" : "--port");
  if (typeof port === "string") return { kind: "usage", message: port };
  if (values.host === "") return { kind: "usage", message: "--host must not be empty" };
  if (values["allowed-host"]?.some((h) => h !== "*" && !isHostSyntax(h)))
    return { kind: "usage", message: "--allowed-host must be a host name, optionally with :port" };
  if (values["python-env"] === "") return { kind: "usage", message: "--python-env must not be empty" };
  if (values["state-dir"] === "") return { kind: "usage", message: "--state-dir must not be empty" };
  const stateDir = values["state-dir"] === undefined ? {} : { stateDir: values["state-dir"] };
  const prefix = values["path-prefix"];
  if (prefix !== undefined && (prefix === "" || !isPathPrefix(prefix)))
    return { kind: "usage", message: "--path-prefix must be a path like /a/b (no trailing slash, query or dot segments)" };
  if (prefix !== undefined && values.stdio) return { kind: "usage", message: "--path-prefix applies to HTTP, not --stdio" };
  const pathPrefix = prefix === undefined ? {} : { pathPrefix: prefix };
  if (values.watch && values.stdio) return { kind: "usage", message: "--watch applies to HTTP, not --stdio" };
  return {
    kind: "run",
    options: {
      ...stateDir,
      ...pathPrefix,
      ...(values.watch ? { watch: true } : {}),
      ...(command ? { stdioServer: command } : {}),
      app: values.app,
      rappture,
      host: values.host,
      port,
      pythonEnv: values["python-env"],
      debug: values.debug ?? false,
      proxy,
      stdio: values.stdio ?? false,
      allowedHosts: values["allowed-host"] ?? [],
      readyLine: values["ready-line"] ?? false,
    },
  };
}
