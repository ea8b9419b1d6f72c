import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
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

/** Serves the app on host:port (@hono/node-server); a taken port is a UsageError (exit 2). */
export function listen(app: OpenAPIHono, host: string, port: number): Promise<HttpListener> {
  return new Promise((resolve, reject) => {
    let server: Server;
    const onError = (err: NodeJS.ErrnoException) => {
      reject(
        err.code === "EADDRINUSE" || err.code === "EACCES" || err.code === "EADDRNOTAVAIL"
          ? new UsageError(`cannot listen on ${host}:${port}: ${err.code}`, { cause: err })
          : err,
      );
    };
    server = serve({ fetch: app.fetch, port, hostname: host }, (info: AddressInfo) => {
      server.off("error", onError);
      const shown = info.family === "IPv6" ? `[${info.address}]` : info.address;
      resolve({
        url: `http://${shown}:${info.port}`,
        port: info.port,
        close: (graceMs) => closeServer(server, graceMs),
      });
    }) as Server;
    server.once("error", onError);
  });
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
