import { test } from "node:test";
import assert from "node:assert/strict";
import { parseLauncherArgs, USAGE } from "../../lib/launcher/args.ts";

test("defaults: no host (the launcher picks loopback, or 0.0.0.0 on a hub), port 8000, proxy auto", () => {
  assert.deepEqual(parseLauncherArgs(["--app", "app.mjs"], {}), {
    kind: "run",
    options: {
      app: "app.mjs",
      rappture: [],
      host: undefined,
      port: 8000,
      pythonEnv: undefined,
      debug: false,
      proxy: "auto",
      stdio: false,
      allowedHosts: [],
      readyLine: false,
    },
  });
});

test("short and long options, MCP_PORT as the port default", () => {
  assert.deepEqual(parseLauncherArgs(["-a", "x.ts", "-p", "9001", "--host", "127.0.0.1", "--debug", "--python-env", "AIIDA", "--proxy", "builtin"], {}), {
    kind: "run",
    options: {
      app: "x.ts",
      rappture: [],
      host: "127.0.0.1",
      port: 9001,
      pythonEnv: "AIIDA",
      debug: true,
      proxy: "builtin",
      stdio: false,
      allowedHosts: [],
      readyLine: false,
    },
  });
  const fromEnv = parseLauncherArgs(["--app=x.mjs"], { MCP_PORT: "7000" });
  assert.equal(fromEnv.kind === "run" && fromEnv.options.port, 7000);
  const stdio = parseLauncherArgs(["--app=x.mjs", "--stdio"], {});
  assert.equal(stdio.kind === "run" && stdio.options.stdio, true);
  assert.match(USAGE, /--stdio/);
  assert.match(USAGE, /--host HOST .+\(default 127\.0\.0\.1;\n +on a hub session 0\.0\.0\.0\)/);
  const hosts = parseLauncherArgs(["--app=x.mjs", "--allowed-host", "lab.example.org", "--allowed-host=lab:8000"], {});
  assert.deepEqual(hosts.kind === "run" && hosts.options.allowedHosts, ["lab.example.org", "lab:8000"]);
  const state = parseLauncherArgs(["--app=x.mjs", "--state-dir", "runs"], {});
  assert.equal(state.kind === "run" && state.options.stateDir, "runs");
  assert.match(USAGE, /--state-dir DIR/);
  const flagWins = parseLauncherArgs(["--app=x.mjs", "--port", "0"], { MCP_PORT: "7000" });
  assert.equal(flagWins.kind === "run" && flagWins.options.port, 0);
  const child = parseLauncherArgs(["--app=x.mjs", "--port", "0", "--path-prefix", "/weber/s/c/0", "--ready-line"], {});
  assert.deepEqual(child.kind === "run" && [child.options.pathPrefix, child.options.readyLine], ["/weber/s/c/0", true]);
  assert.match(USAGE, /--path-prefix PATH/);
  assert.match(USAGE, /--ready-line {8}once listening, print one JSON line on stdout/);
});

test("help wins over everything else", () => {
  assert.deepEqual(parseLauncherArgs(["-h"], {}), { kind: "help" });
  assert.deepEqual(parseLauncherArgs(["--app", "x", "--help"], {}), { kind: "help" });
  assert.match(USAGE, /--app FILE/);
  assert.match(USAGE, /--python-env NAME/);
});

test("--stdio-server takes its command after --, options of its own included", () => {
  const parsed = parseLauncherArgs(["--stdio-server", "--port", "0", "--", "python", "server.py", "--port", "9"], {});
  assert.equal(parsed.kind, "run");
  const options = parsed.kind === "run" ? parsed.options : null;
  assert.deepEqual(options?.stdioServer, ["python", "server.py", "--port", "9"]);
  assert.equal(options?.port, 0);
  assert.equal(options?.app, undefined);
  assert.match(USAGE, /--stdio-server {6}serve the stdio MCP server/);
});

test("usage errors: unknown option, missing --app, positionals, bad values", () => {
  const cases: [string[], Record<string, string>, RegExp][] = [
    [["--app", "x", "--frobnicate"], {}, /--frobnicate/],
    [[], {}, /--app, --rappture or --stdio-server is required/],
    [["--stdio-server"], {}, /command after --/],
    [["--stdio-server", "--"], {}, /needs a command after --/],
    [["--stdio-server", "--", ""], {}, /needs a command after --/],
    [["--app", "x", "--", "python"], {}, /command after --, and only it/],
    [["--stdio-server", "--app", "x", "--", "python"], {}, /not with --app or --rappture/],
    [["--stdio-server", "--rappture", "t.xml", "--", "python"], {}, /not with --app or --rappture/],
    [["--stdio-server", "--watch", "--", "python"], {}, /--watch applies to --app/],
    [["--rappture", ""], {}, /--app and --rappture must name a file/],
    [["--app", "x", "extra"], {}, /positional/i],
    [["--app", "x", "--port", "http"], {}, /--port must be a port number/],
    [["--app", "x", "--port", "70000"], {}, /--port must be a port number/],
    [["--app", "x"], { MCP_PORT: "eighty" }, /MCP_PORT must be a port number/],
    [["--app", "x", "--proxy", "nginx"], {}, /--proxy must be one of/],
    [["--app", "x", "--host", ""], {}, /--host must not be empty/],
    [["--app", "x", "--allowed-host", "https://x/"], {}, /--allowed-host must be a host name/],
    [["--app", "x", "--python-env", ""], {}, /--python-env must not be empty/],
    [["--app", "x", "--state-dir", ""], {}, /--state-dir must not be empty/],
    [["--app", "x", "--path-prefix", ""], {}, /--path-prefix must be a path/],
    [["--app", "x", "--path-prefix", "/a/"], {}, /--path-prefix must be a path/],
    [["--app", "x", "--path-prefix", "weber"], {}, /--path-prefix must be a path/],
    [["--app", "x", "--path-prefix", "/a", "--stdio"], {}, /--path-prefix applies to HTTP/],
    [["--app"], {}, /argument missing|--app/],
  ];
  for (const [argv, env, message] of cases) {
    const parsed = parseLauncherArgs(argv, env);
    assert.equal(parsed.kind, "usage", argv.join(" "));
    assert.match(parsed.kind === "usage" ? parsed.message : "", message, argv.join(" "));
  }
});

test("--rappture alone or beside --app, repeatable", () => {
  const alone = parseLauncherArgs(["--rappture", "a/tool.xml", "--rappture=b/tool.xml"], {});
  assert.equal(alone.kind === "run" && alone.options.app, undefined);
  assert.deepEqual(alone.kind === "run" && alone.options.rappture, ["a/tool.xml", "b/tool.xml"]);
  const both = parseLauncherArgs(["--app", "x.mjs", "--rappture", "a/tool.xml"], {});
  assert.deepEqual(both.kind === "run" && [both.options.app, both.options.rappture], ["x.mjs", ["a/tool.xml"]]);
});
