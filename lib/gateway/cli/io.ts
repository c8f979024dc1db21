// What the hub_gateway commands share: the streams they write to, the help text and the one
// way a usage error is reported (the message, then the help, exit status 2).

export const NAME = "hub_gateway";

export const USAGE = `usage: hub_gateway --config FILE [--host HOST] [--port PORT] [--data-dir DIR]
       hub_gateway init [--app FILE] [--tool NAME] [--user NAME] [--password-stdin]
                        [--config FILE] [--data-dir DIR | --store URL] [--port PORT]
       hub_gateway user add NAME [--groups a,b] --password-stdin [STORE]
       hub_gateway user list [STORE]                    (each user's name, groups, creation time)
       hub_gateway user remove NAME [STORE]
       hub_gateway user passwd NAME --password-stdin [STORE]
       hub_gateway user groups NAME a,b [STORE]
       hub_gateway token create NAME [--expires 30d] [--name LABEL] [STORE]
       hub_gateway token revoke ID [STORE]
       hub_gateway token list [STORE]                   (id, owner, created, expires, last used, name)
       hub_gateway tool add NAME (--app FILE | --url URL | --rappture FILE | --command -- CMD …)
                        [--revision R] [--groups a,b] [--isolation shared] [--default] [STORE]
       hub_gateway tool update NAME [--app FILE | --url URL | …] [--revision R] [--groups a,b] [--default] [STORE]
       hub_gateway tool remove NAME [--revision R] [--now] [STORE]
       hub_gateway tool list [--format json] [STORE]     (gateway.json's tools too, with --config)
       hub_gateway tool show NAME [STORE]
       hub_gateway tool import FILE [STORE]             (a JSON list of tools, each with its "name")
       hub_gateway usage [--since 30d] [--tool NAME] [--by tool|person]
                         [--format table|csv|json] (--config FILE | --audit-dir DIR)
       hub_gateway --version
  where STORE is --data-dir DIR, --store URL, or --config FILE (the "store" it names)

Front many MCP tools for outside callers: bearer tokens, per-user tool sessions.
\`init\` writes a working local gateway.json, a data dir and a user, and prints a token.

options:
      --config FILE       gateway.json (publicUrl, tools, limits)  (init: default ./gateway.json)
      --host HOST         bind address                        (default 127.0.0.1)
      --port PORT         listening port                      (default 8080)
      --data-dir DIR      accounts, tokens, keys, sessions    (default ./hub-data)
      --store URL         instead of --data-dir: postgres://user@host:port/db, shared by
                          replicas on any machine (password in HUBMCP_STORE_PASSWORD;
                          also "store" in gateway.json)
      --groups LIST       comma-separated groups for user add
      --password-stdin    read the password from stdin
      --app FILE          init: the tool app to serve         (default: this package's demo app)
      --tool NAME         init: the tool's name in URLs       (default: mcpdemo, or the app's file name)
      --user NAME         init: the first user                (default: your login name)
      --expires LIFETIME  token create: refuse the token after 12h, 30d, 8w…  (default: never)
      --name LABEL        token create: what the token is for ("laptop")
      --url URL, --rappture FILE, --command -- CMD …
                          tool add/update: a revision's server, as in gateway.json
      --revision R        tool: the revision                  (default: "default", update: the tool's default)
      --isolation MODE    tool: "process" or "shared", for --app or --rappture
      --default           tool: make --revision the one served without ?revision=
      --now               tool remove: end the removed revision's running sessions at once
      --format FMT        tool list: text or json; usage: table, csv or json  (default table)
      --since AGE|DATE    usage: lines since 30d, 12h, 2w or a date  (default 30d)
      --by tool|person    usage: rows per tool and revision, or per person   (default tool)
      --audit-dir DIR     usage: the audit folder, instead of the config's audit.dir
  -h, --help              show this help
      --version           print hubmcp's version
`;

export interface CliIo {
  out(line: string): void;
  err(line: string): void;
  readStdin(): Promise<string>;
  /** Resolves when the server should stop. */
  stopRequested: Promise<string>;
}

export function usage(io: CliIo, message: string): number {
  io.err(`${NAME}: ${message}`);
  io.err(USAGE.trimEnd());
  return 2;
}

/** The password from stdin: one line, its line break dropped. */
export async function passwordFromStdin(io: CliIo): Promise<string> {
  return (await io.readStdin()).replace(/\r?\n$/, "");
}

export function groupList(text: string | undefined): string[] {
  return (text ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
}
