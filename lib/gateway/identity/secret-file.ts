// Secrets the operator puts in files (the OpenID client secret, the front end's shared
// secret): read only from a regular file of our own account that nobody else may read or
// write, since another local account on the host is an attacker. Never echoed.
import { closeSync, constants, fstatSync, openSync, readFileSync } from "node:fs";
import { ConfigError } from "../config/gateway-config.ts";

const MIN_LENGTH = 16;

/** The file's secret, trimmed; throws ConfigError naming the key (never the content). */
export function readSecretFile(path: string, key: string): string {
  let fd: number;
  try {
    // O_NOFOLLOW: a symbolic link planted in the file's place is refused, not followed.
    fd = openSync(path, constants.O_RDONLY | constants.O_NOFOLLOW);
  } catch {
    throw new ConfigError(key, "names a file that cannot be read (or is a symbolic link)");
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new ConfigError(key, "must name a regular file");
    const uid = process.getuid?.();
    if (uid !== undefined && st.uid !== uid) throw new ConfigError(key, "must name a file owned by the account the gateway runs as");
    if ((st.mode & 0o077) !== 0) throw new ConfigError(key, "must name a file only its owner can read (chmod 600)");
    const secret = readFileSync(fd, "utf8").trim();
    if (secret.length < MIN_LENGTH || !/^[\x21-\x7e]+$/.test(secret))
      throw new ConfigError(key, `must hold a secret of ${MIN_LENGTH} or more printable characters`);
    return secret;
  } finally {
    closeSync(fd);
  }
}
