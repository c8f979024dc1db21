// Which hosts are this machine, decided once: the tool server's Host and Origin guard, the
// launcher's warning about a non-loopback bind, the gateway's loopback OAuth redirects and
// hub_bridge's "plain http only to loopback" all ask here.

const IPV4_LOOPBACK = /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/;

/**
 * A loopback address or the name `localhost`: 127.0.0.0/8 and ::1 (bracketed as in a URL or
 * Host header, or bare as a socket address), any case. Names under `.localhost` are not
 * included: Node's resolver may send them to DNS.
 */
export function isLoopbackHost(host: string): boolean {
  const h = host.toLowerCase();
  return h === "localhost" || h === "::1" || h === "[::1]" || IPV4_LOOPBACK.test(h);
}

/** isLoopbackHost, and names under `.localhost`, which browsers resolve to loopback themselves. */
export function isBrowserLoopbackHost(host: string): boolean {
  return isLoopbackHost(host) || host.toLowerCase().endsWith(".localhost");
}
