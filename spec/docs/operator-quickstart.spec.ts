// The operator quickstart's proxy configurations are ones the proxies accept: the nginx block
// passes `nginx -t` and the haproxy block `haproxy -c`, with a throwaway self-signed
// certificate in place of the page's paths. A proxy that is not installed skips its check,
// naming what is missing.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ROOT, tempDir } from "../helpers/launcher-fixtures.ts";
import { fenced } from "../helpers/pages.ts";

const PAGE = readFileSync(join(ROOT, "docs", "operator-quickstart.md"), "utf8");
const PATHS = ["/usr/sbin", "/usr/local/sbin", "/sbin", ...(process.env.PATH ?? "").split(":")];

function found(program: string): string | undefined {
  return PATHS.map((dir) => join(dir, program)).find((path) => spawnSync(path, ["-v"], { timeout: 10_000 }).error === undefined);
}

const missing = (...programs: string[]): string | false => {
  const absent = programs.filter((p) => !found(p));
  return absent.length > 0 ? `${absent.join(" and ")} not installed here` : false;
};

/** A self-signed certificate and key for hub.example.org, as files in `dir`. */
function certificate(dir: string): { cert: string; key: string } {
  const cert = join(dir, "cert.pem");
  const key = join(dir, "key.pem");
  const made = spawnSync(
    found("openssl")!,
    ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=hub.example.org"],
    { timeout: 30_000 },
  );
  assert.equal(made.status, 0, "openssl made a certificate");
  return { cert, key };
}

/** nginx is one of the project's spec packages (.ci/run installs it): under CI its absence fails rather than skips. */
function nginxSkip(): string | false {
  const reason = missing("nginx", "openssl");
  if (reason && process.env.CI) throw new Error(`${reason}: apt-get install -y nginx openssl`);
  return reason;
}

test("the quickstart's nginx configuration passes nginx -t", { skip: nginxSkip(), timeout: 60_000 }, (t) => {
  const blocks = fenced(PAGE, "nginx");
  assert.equal(blocks.length, 1, "one nginx block");
  const site = blocks[0]!.code;
  // What the page's prose promises of it.
  // /mcp needs no affinity (its sessions live in the store); legacy SSE streams do.
  assert.doesNotMatch(site, /location = \/mcp/);
  assert.match(site, /location ~ \^\/api\/mcp\/\[\^\/\]\+\/sse\$ \{\s*proxy_pass http:\/\/hubmcp_sticky;/);
  assert.match(site, /upstream hubmcp_sticky \{[^}]*hash \$remote_addr consistent;/);
  assert.match(site, /client_max_body_size 16m;/);
  assert.match(site, /proxy_buffering off;/);
  const dir = tempDir(t);
  const { cert, key } = certificate(dir);
  const replaced = site.replace(/ssl_certificate\s+\S+;/, `ssl_certificate ${cert};`).replace(/ssl_certificate_key\s+\S+;/, `ssl_certificate_key ${key};`);
  assert.notEqual(replaced, site, "the certificate paths were found");
  // The page's file is a conf.d include: the main file around it, with every path in `dir`.
  const conf = join(dir, "nginx.conf");
  writeFileSync(conf, `pid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\naccess_log ${dir}/access.log;\n${replaced}\n}\n`);
  const checked = spawnSync(found("nginx")!, ["-t", "-q", "-p", dir, "-e", join(dir, "error.log"), "-c", conf], { encoding: "utf8", timeout: 30_000 });
  assert.equal(checked.status, 0, checked.stderr);
});

test("the quickstart's haproxy configuration passes haproxy -c", { skip: missing("haproxy", "openssl"), timeout: 60_000 }, (t) => {
  const blocks = fenced(PAGE, "haproxy");
  assert.equal(blocks.length, 1, "one haproxy block");
  const cfg = blocks[0]!.code;
  // /mcp needs no affinity (its sessions live in the store); legacy SSE streams go by address.
  assert.doesNotMatch(cfg, /mcp-session-id/);
  assert.match(cfg, /use_backend hubmcp_by_address if \{ path_reg \^\/api\/mcp\/\[\^\/\]\+\/sse\$ \}/);
  const dir = tempDir(t);
  const { cert, key } = certificate(dir);
  const pem = join(dir, "hub.pem");
  writeFileSync(pem, readFileSync(cert, "utf8") + readFileSync(key, "utf8"));
  const replaced = cfg.replace(/crt \S+/, `crt ${pem}`);
  assert.notEqual(replaced, cfg, "the certificate path was found");
  writeFileSync(join(dir, "haproxy.cfg"), replaced);
  const checked = spawnSync(found("haproxy")!, ["-c", "-q", "-f", join(dir, "haproxy.cfg")], { encoding: "utf8", timeout: 30_000 });
  assert.equal(checked.status, 0, checked.stderr);
});
