// A real nginx in front of the hub for the front-end specs: started by the spec on a loopback
// port with a throwaway prefix, in the foreground (no daemon, no master), killed afterwards.
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { TestContext } from "node:test";

const NGINX = ["/usr/sbin/nginx", "/usr/bin/nginx"].find((p) => existsSync(p));

/** Why the nginx specs can't run here (CI installs nginx, so there its absence fails). */
export function nginxSkip(): string | false {
  if (NGINX) return false;
  if (process.env.CI) throw new Error("nginx is not installed: apt-get install -y nginx");
  return "nginx is not installed";
}

async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/** Starts nginx with `servers` (server blocks; `PORT_n` replaced by free ports); answers the ports. */
export async function startNginx(t: TestContext, http: (ports: number[]) => string, count: number): Promise<{ ports: number[]; dir: string }> {
  const dir = mkdtempSync(join(tmpdir(), "hub-nginx-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const ports: number[] = [];
  for (let i = 0; i < count; i++) ports.push(await freePort());
  const temp = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((k) => `${k}_temp_path ${dir}/${k};`).join("\n");
  const conf = join(dir, "nginx.conf");
  writeFileSync(
    conf,
    `daemon off;\nmaster_process off;\npid ${dir}/nginx.pid;\nerror_log ${dir}/error.log;\nevents {}\nhttp {\naccess_log off;\n${temp}\n${http(ports)}\n}\n`,
  );
  const checked = spawnSync(NGINX!, ["-t", "-q", "-p", dir, "-e", join(dir, "error.log"), "-c", conf], { encoding: "utf8", timeout: 30_000 });
  if (checked.status !== 0) throw new Error(`nginx -t failed: ${checked.stderr}`);
  const child = spawn(NGINX!, ["-p", dir, "-e", join(dir, "error.log"), "-c", conf], { stdio: "ignore" });
  t.after(() => {
    child.kill("SIGKILL");
  });
  // Ready when every port takes a connection.
  for (const port of ports) await reachable(port, child);
  return { ports, dir };
}

async function reachable(port: number, child: ReturnType<typeof spawn>): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error("nginx exited");
    const socket = connect(port, "127.0.0.1");
    const result = await new Promise<boolean>((resolve) => {
      socket.once("connect", () => resolve(true));
      socket.once("error", () => resolve(false));
    });
    socket.destroy();
    if (result) return;
    // Not listening yet: the next attempt waits for the event loop to turn (setImmediate).
    await new Promise((resolve) => setImmediate(resolve));
  }
  throw new Error("nginx did not start listening");
}
