import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import type { OpenAPIHono } from "@hono/zod-openapi";
import { UsageError } from "../../engine/errors.ts";

/** A listening HTTP server. */
export interface HttpListener {
  /** `http://<host>:<port>` (the real port when 0 was asked). */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, lets requests in progress finish for up to graceMs. */
  close(graceMs: number): Promise<void>;
}

/** What a listen error means, said so the user knows what to change. */
const LISTEN_FAILURES: Record<string, string> = {
  EADDRINUSE: "the port is in use (another serve?); choose another with --port or server.port",
  EACCES: "not allowed to use this port (ports below 1024 need privileges)",
  EADDRNOTAVAIL: "no such address on this machine; check --host or server.host",
};

/** A port held before the app exists: requests get 503 until serve(app) is called. */
export interface BoundListener extends HttpListener {
  serve(app: OpenAPIHono): void;
}

/**
 * Holds host:port before anything else is started, so a taken port fails before any work
 * (queue, scheduler) is touched; a taken port is a UsageError (exit 2).
 */
export function bindPort(host: string, port: number): Promise<BoundListener> {
  return new Promise((resolve, reject) => {
    let handle: RequestListener = (_req, res) => {
      res.writeHead(503, { "content-type": "application/json", "retry-after": "1" });
      res.end('{"error":"starting"}');
    };
    const server = createServer((req, res) => handle(req, res));
    const onError = (err: NodeJS.ErrnoException) => {
      const why = err.code === undefined ? undefined : LISTEN_FAILURES[err.code];
      reject(
        why === undefined
          ? err
          : new UsageError(`cannot listen on ${host}:${port}: ${err.code}, ${why}`, {
              cause: err,
            }),
      );
    };
    server.once("error", onError);
    server.listen(port, host, () => {
      server.off("error", onError);
      const info = server.address() as AddressInfo;
      const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}`,
        port: info.port,
        close: (graceMs) => closeServer(server, graceMs),
        serve: (app) => {
          handle = getRequestListener(app.fetch);
        },
      });
    });
  });
}

/** Serves the app on host:port (@hono/node-server); a taken port is a UsageError (exit 2). */
export async function listen(app: OpenAPIHono, host: string, port: number): Promise<HttpListener> {
  const bound = await bindPort(host, port);
  bound.serve(app);
  return bound;
}

function closeServer(server: Server, graceMs: number): Promise<void> {
  return new Promise((resolve) => {
    // Keep-alive connections would hold close() open: drop the idle ones now, the busy ones
    // once their request is answered or the grace period is over.
    const timer = setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearTimeout(timer);
      resolve();
    });
    server.closeIdleConnections();
  });
}
