// Which addresses a client metadata document may be fetched from: public unicast only, so a
// client_id URL can't make the hub probe its own network (SSRF).
import { isIP } from "node:net";

export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isPublicV4(address);
  if (family === 6) return isPublicV6(address.toLowerCase());
  return false;
}

function isPublicV4(address: string): boolean {
  const [a, b] = address.split(".").map(Number) as [number, number, number, number];
  if (a === 0 || a === 10 || a === 127 || a >= 224) return false;
  if (a === 100 && b >= 64 && b <= 127) return false; // carrier-grade NAT
  if (a === 169 && b === 254) return false; // link-local, cloud metadata
  if (a === 172 && b >= 16 && b <= 31) return false;
  if (a === 192 && (b === 168 || b === 0)) return false;
  if (a === 198 && (b === 18 || b === 19)) return false;
  return true;
}

function isPublicV6(address: string): boolean {
  if (address === "::" || address === "::1") return false;
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) return isPublicV4(mapped[1]!);
  if (address.startsWith("::ffff:") || address.startsWith("64:ff9b:")) return false;
  const first = parseInt(address.split(":")[0] || "0", 16);
  if ((first & 0xfe00) === 0xfc00) return false; // unique local
  if ((first & 0xffc0) === 0xfe80) return false; // link-local
  if ((first & 0xff00) === 0xff00) return false; // multicast
  return true;
}
