// Waiting for a child program (the external reverse proxy) to listen.
import { connect } from "node:net";

function tryConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: "127.0.0.1", port });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

/** Polls until something accepts on 127.0.0.1:port; false if `gone` settles first or time runs out. */
export async function waitForPort(port: number, gone: Promise<unknown>, timeoutMs = 15_000, intervalMs = 50): Promise<boolean> {
  let ended = false;
  void gone.then(() => (ended = true));
  const deadline = Date.now() + timeoutMs;
  while (!ended && Date.now() < deadline) {
    if (await tryConnect(port)) return true;
    await new Promise((done) => setTimeout(done, intervalMs));
  }
  return false;
}
