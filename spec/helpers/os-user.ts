// OS accounts for specs that play another local user (the attacker) or a tool account.
// Specs run as root (CI too); each account is removed again in t.after.
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";

interface After {
  after(fn: () => unknown): void;
}

export interface OsUser {
  name: string;
  uid: number;
  gid: number;
}

export const IS_ROOT = process.getuid?.() === 0;

/** A fresh account without a home or a login shell: a system one, or (`person`) one in the login range. */
export function osUser(t: After, label = "hmx", kind: "system" | "person" = "system"): OsUser {
  const name = `${label}${randomBytes(4).toString("hex")}`;
  execFileSync("useradd", [...(kind === "system" ? ["--system"] : []), "--no-create-home", "--shell", "/usr/sbin/nologin", "--user-group", name]);
  t.after(() => execFileSync("userdel", ["--force", name], { stdio: "ignore" }));
  const [, , uid, gid] = execFileSync("getent", ["passwd", name], { encoding: "utf8" }).trim().split(":");
  return { name, uid: Number(uid), gid: Number(gid) };
}

/** Runs a small ESM script as `user`; resolves with what it printed. */
export function runAs(user: OsUser, script: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ["--input-type=module", "-e", script], {
      uid: user.uid,
      gid: user.gid,
      cwd: "/",
      env: { PATH: process.env.PATH },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    child.stdout.setEncoding("utf8").on("data", (c: string) => (out += c));
    child.stderr.setEncoding("utf8").on("data", (c: string) => (err += c));
    const timer = setTimeout(() => child.kill("SIGKILL"), 30_000);
    child.once("close", (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(out.trim());
      else reject(new Error(`script as ${user.name} exited ${code}: ${err.slice(-500)}`));
    });
  });
}
