/**
 * A fake OpenAI-compatible embeddings server: `POST /v1/embeddings` with `{ model, input }`
 * answers `{ object: "list", data: [{ object, index, embedding }], model, usage }`. Vectors are
 * deterministic: the lexical embedding of each text (so similar texts get similar vectors and
 * `rakuten similar` shows something sensible against it). Knobs: a required API key (401 with
 * OpenAI's error body otherwise), a batch limit (400 above it), a model list (404 for others),
 * answers one vector short or in reverse order; the server's fault knobs (status sequences,
 * delays, 429 rate limiting) come from startFakeServer.
 */
import { startFakeServer } from "tidemark/kit";
import { lexicalEmbedding } from "../stages/embeddings/lexical-embedding.ts";

/** The running HTTP server (requests, stats, fault knobs). */
type FakeServer = Awaited<ReturnType<typeof startFakeServer>>;

/** Live behaviour of the fake; change fields at any time. */
export interface EmbeddingsFakeKnobs {
  /** When set, requests need `Authorization: Bearer <apiKey>`. */
  apiKey: string | undefined;
  /** Inputs allowed per request (OpenAI allows 2048). */
  maxBatchSize: number;
  /** Vector length when the request names no `dimensions`. */
  dimensions: number;
  /** When set, only these models exist. */
  models: string[] | undefined;
  /** Answer one vector fewer than asked (a broken server). */
  omitLastVector: boolean;
  /** List the vectors last to first (legal: clients must use `index`). */
  reverseOrder: boolean;
}

/** What the fake has answered. */
export interface EmbeddingsFakeCounters {
  /** Requests answered 200. */
  requests: number;
  /** Texts embedded. */
  inputs: number;
  /** Size of each answered batch, in order. */
  batchSizes: number[];
}

/** A running embeddings fake. */
export interface EmbeddingsFake {
  /** Base URL to configure (`pipelines.rakuten.embeddings.base_url`, `TIDEMARK_EMBEDDINGS_URL`). */
  readonly url: string;
  readonly knobs: EmbeddingsFakeKnobs;
  readonly counters: EmbeddingsFakeCounters;
  readonly server: FakeServer;
  close(): Promise<void>;
}

const DEFAULT_KNOBS: EmbeddingsFakeKnobs = {
  apiKey: undefined,
  maxBatchSize: 2048,
  dimensions: 64,
  models: undefined,
  omitLastVector: false,
  reverseOrder: false,
};

/** OpenAI's error body. */
function openAiError(status: number, message: string, type: string, code: string | null) {
  return Response.json({ error: { message, type, param: null, code } }, { status });
}

/** The request handler (mountable on another fake server too). */
export function embeddingsFakeHandler(
  knobs: EmbeddingsFakeKnobs,
  counters: EmbeddingsFakeCounters,
) {
  return async (request: Request): Promise<Response> => {
    const path = new URL(request.url).pathname.replace(/\/+$/, "");
    if (path !== "/v1/embeddings")
      return openAiError(404, `no route ${path}`, "invalid_request_error", null);
    if (request.method !== "POST") {
      return openAiError(405, "use POST", "invalid_request_error", null);
    }
    if (
      knobs.apiKey !== undefined &&
      request.headers.get("authorization") !== `Bearer ${knobs.apiKey}`
    ) {
      return openAiError(
        401,
        "Incorrect API key provided.",
        "invalid_request_error",
        "invalid_api_key",
      );
    }
    let body: { model?: unknown; input?: unknown; dimensions?: unknown };
    try {
      body = (await request.json()) as typeof body;
    } catch {
      return openAiError(
        400,
        "We could not parse the JSON body of your request.",
        "invalid_request_error",
        null,
      );
    }
    if (typeof body.model !== "string" || body.model === "") {
      return openAiError(400, "you must provide a model parameter", "invalid_request_error", null);
    }
    if (knobs.models !== undefined && !knobs.models.includes(body.model)) {
      return openAiError(
        404,
        `The model \`${body.model}\` does not exist`,
        "invalid_request_error",
        "model_not_found",
      );
    }
    const inputs = typeof body.input === "string" ? [body.input] : body.input;
    if (
      !Array.isArray(inputs) ||
      inputs.length === 0 ||
      !inputs.every((t) => typeof t === "string")
    ) {
      return openAiError(
        400,
        "'input' must be a string or a non-empty array of strings",
        "invalid_request_error",
        null,
      );
    }
    if (inputs.length > knobs.maxBatchSize) {
      return openAiError(
        400,
        `'input' must have at most ${knobs.maxBatchSize} items`,
        "invalid_request_error",
        null,
      );
    }
    const dims = typeof body.dimensions === "number" ? body.dimensions : knobs.dimensions;
    let data = (inputs as string[]).map((text, index) => ({
      object: "embedding",
      index,
      embedding: lexicalEmbedding(text, dims),
    }));
    if (knobs.omitLastVector) data = data.slice(0, -1);
    if (knobs.reverseOrder) data = data.reverse();
    counters.requests++;
    counters.inputs += inputs.length;
    counters.batchSizes.push(inputs.length);
    const tokens = (inputs as string[]).reduce((n, t) => n + t.length, 0);
    return Response.json({
      object: "list",
      data,
      model: body.model,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  };
}

/** Starts the fake on 127.0.0.1 (a free port unless given). */
export async function startEmbeddingsFake(
  options: { knobs?: Partial<EmbeddingsFakeKnobs>; port?: number; host?: string } = {},
): Promise<EmbeddingsFake> {
  const knobs: EmbeddingsFakeKnobs = { ...DEFAULT_KNOBS, ...options.knobs };
  const counters: EmbeddingsFakeCounters = { requests: 0, inputs: 0, batchSizes: [] };
  const server = await startFakeServer(embeddingsFakeHandler(knobs, counters), {
    port: options.port,
    host: options.host,
  });
  return { url: server.url, knobs, counters, server, close: () => server.close() };
}
