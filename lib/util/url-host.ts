// The host name node:http's request() takes for a URL: WHATWG URLs keep an IPv6 literal in
// brackets (`[::1]`), which request() would look up as a name and not find.

/** `url.hostname` without the brackets of an IPv6 literal. */
export function requestHostname(url: URL): string {
  const host = url.hostname;
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}
