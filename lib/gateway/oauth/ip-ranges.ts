// Which addresses a client metadata document may be fetched from: public unicast only, so a
// client_id URL can't make the hub probe its own network (SSRF); and whether an address is one
// of an operator's listed ranges.
import { BlockList, isIP } from "node:net";

/**
 * Whether an address lies in one of `ranges` (addresses or CIDR ranges, as an operator lists a
 * front end's); an IPv4 address on a dual-stack socket (`::ffff:a.b.c.d`) counts as IPv4.
 */
export function addressMatcher(ranges: readonly string[]): (address: string | undefined) => boolean {
  const list = new BlockList();
  for (const range of ranges) {
    const [address, bits] = range.split("/") as [string, string | undefined];
    const family = isIP(address);
    if (family === 0) throw new TypeError("not an IP address or CIDR range");
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (raw) => {
    if (!raw) return false;
    const address = raw.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");
    const family = isIP(address);
    return family !== 0 && list.check(address, family === 4 ? "ipv4" : "ipv6");
  };
}

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
