import { type FakeServer, startFakeServer } from "tidemark/kit";
import { Catalogue } from "./catalogue.ts";

/**
 * The fault knob: `wrong-shape` answers the changes feed with its entries under another field
 * (the run must fail, its cursor stay); `proxy-404` answers package documents 404 with an HTML
 * page instead of the registry's documented not-found body (those packages fail, never "gone").
 */
export type RegistryFault = "none" | "wrong-shape" | "proxy-404";

const FAULTS: readonly RegistryFault[] = ["none", "wrong-shape", "proxy-404"];

/** A running fake registry. */
export interface RegistryFake {
  readonly url: string;
  readonly server: FakeServer;
  readonly catalogue: Catalogue;
  fault: RegistryFault;
  close(): Promise<void>;
}

/** Options of the fake. */
export interface RegistryFakeOptions {
  port?: number;
  host?: string;
  /** Packages in the catalogue (default 40). */
  count?: number;
  fault?: RegistryFault;
}

function json(body: unknown, status = 200): Response {
  return Response.json(body, { status });
}

/** The package document as the registry sends it. */
function packageBody(catalogue: Catalogue, name: string): Response {
  const pkg = catalogue.packages.get(name);
  if (!pkg) return json({ error: "not_found" }, 404);
  return json({
    name: pkg.name,
    "dist-tags": { latest: pkg.versions.at(-1) },
    versions: Object.fromEntries(pkg.versions.map((v) => [v, { version: v }])),
    license: pkg.license,
    time: { modified: pkg.modified },
    downloads: pkg.downloads,
  });
}

/**
 * Starts a fake package registry: `GET /_changes?since=&limit=` (a CouchDB-style changes
 * feed), `GET /<name>` (a package document), and `POST /_fake/publish?name=&version=`,
 * `POST /_fake/unpublish?name=`, `POST /_fake/fault?kind=` to change it from outside.
 */
export async function startRegistryFake(options: RegistryFakeOptions = {}): Promise<RegistryFake> {
  const catalogue = new Catalogue(options.count ?? 40, Date.now());
  const state = { fault: options.fault ?? ("none" as RegistryFault) };
  const server = await startFakeServer(
    (request) => {
      const url = new URL(request.url);
      const q = (k: string) => url.searchParams.get(k) ?? "";
      if (request.method === "POST") return control(url.pathname, q);
      if (url.pathname === "/_changes") {
        const since = Number(q("since") || 0);
        const limit = Math.min(1000, Math.max(1, Number(q("limit") || 100)));
        const results = catalogue.changesAfter(since, limit);
        const last = results.at(-1)?.seq ?? since;
        if (state.fault === "wrong-shape") return json({ changes: results, last_seq: last });
        return json({ results, last_seq: last });
      }
      const name = decodeURIComponent(url.pathname.slice(1));
      if (state.fault === "proxy-404") {
        return new Response("<html>Not Found</html>", {
          status: 404,
          headers: { "content-type": "text/html" },
        });
      }
      return packageBody(catalogue, name);
    },
    { port: options.port ?? 0, host: options.host ?? "127.0.0.1" },
  );

  function control(path: string, q: (k: string) => string): Response {
    if (path === "/_fake/publish" && q("name") && q("version")) {
      catalogue.publish(q("name"), q("version"));
      return json({ last_seq: catalogue.lastSeq });
    }
    if (path === "/_fake/unpublish" && q("name")) {
      catalogue.unpublish(q("name"));
      return json({ last_seq: catalogue.lastSeq });
    }
    if (path === "/_fake/fault" && FAULTS.includes(q("kind") as RegistryFault)) {
      state.fault = q("kind") as RegistryFault;
      return json({ fault: state.fault });
    }
    return json({ error: "bad control request" }, 400);
  }

  return {
    url: server.url,
    server,
    catalogue,
    get fault() {
      return state.fault;
    },
    set fault(kind: RegistryFault) {
      state.fault = kind;
    },
    close: () => server.close(),
  };
}
