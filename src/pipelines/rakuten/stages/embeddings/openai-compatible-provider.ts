import { ConfigError, type Logger, rememberSecret } from "tidemark";
import {
  BadPayloadError,
  ClientHttpError,
  HttpClient,
  type HttpRequestEvent,
  type HttpResponse,
  NotFoundHttpError,
  parseJsonBody,
} from "tidemark/kit";
import { z } from "zod";
import type { EmbeddingProvider, EmbeddingsConfig } from "./provider.ts";

/** The part of an OpenAI-style embeddings answer we use (other fields are ignored). */
const embeddingsResponse = z.object({
  data: z.array(
    z.object({
      index: z.number().int().min(0),
      embedding: z.array(z.number()),
    }),
  ),
});

/**
 * `POST <base>/v1/embeddings` with `{ model, input: [texts] }`: OpenAI, Ollama, vLLM,
 * text-embeddings-inference and any server speaking that API. A base URL already ending in
 * `/v1` gets `/embeddings` only. The API key, when its variable is set, goes in
 * `Authorization: Bearer`; servers without auth (Ollama, TEI) need none.
 */
export class OpenAiCompatibleProvider implements EmbeddingProvider {
  readonly kind = "semantic" as const;
  readonly dimensions = undefined;
  readonly model: string;
  readonly batchSize: number;
  readonly #http: HttpClient;
  readonly #url: string;
  readonly #keyEnv: string;
  readonly #keySet: boolean;

  constructor(
    config: EmbeddingsConfig,
    environ: NodeJS.ProcessEnv,
    logger: Logger,
    onRequest?: (event: HttpRequestEvent) => void,
  ) {
    if (config.baseUrl === undefined) {
      throw new ConfigError(
        "pipelines.rakuten.embeddings.base_url (or TIDEMARK_EMBEDDINGS_URL) is required for provider openai-compatible",
      );
    }
    const base = config.baseUrl.replace(/\/+$/, "");
    this.#url = /\/v1$/.test(base) ? `${base}/embeddings` : `${base}/v1/embeddings`;
    this.model = config.model;
    this.batchSize = config.batchSize;
    const key = environ[config.apiKeyEnv];
    // OpenAI-style servers quote a refused key back ("Incorrect API key provided: sk-…").
    rememberSecret(key);
    this.#keyEnv = config.apiKeyEnv;
    this.#keySet = Boolean(key);
    this.#http = new HttpClient({
      logger,
      userAgent: "tidemark-rakuten-embeddings",
      timeoutMs: config.timeoutMs ?? 60_000,
      retry: { maxAttempts: config.maxAttempts ?? 4 },
      headers: key ? { authorization: `Bearer ${key}` } : {},
      onRequest,
    });
  }

  /** One request for all of `texts`; checks one vector per text, one length, finite numbers. */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    if (texts.length === 0) return [];
    const response = await this.#http
      .request(this.#url, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json" },
        body: JSON.stringify({ model: this.model, input: texts }),
        signal,
        // Embedding the same texts twice is harmless: retry whatever failed.
        retryUnsafe: true,
      })
      .catch((err: unknown) => {
        throw this.#configProblem(err) ?? err;
      });
    const body = parseJsonBody(response.bodyText, response.headers, embeddingsResponse, {
      method: "POST",
      url: this.#url,
      status: response.status,
      attempts: response.attempts,
    });
    const vectors = new Array<number[] | undefined>(texts.length);
    for (const d of body.data) {
      if (d.index < texts.length) vectors[d.index] = d.embedding;
    }
    const length = vectors[0]?.length ?? 0;
    for (let i = 0; i < texts.length; i++) {
      const v = vectors[i];
      if (v === undefined) throw this.#bad(response, `data: no vector for input ${i}`);
      if (v.length === 0 || v.length !== length) {
        throw this.#bad(response, `data[${i}]: ${v.length} dimensions, expected ${length}`);
      }
    }
    return vectors as number[][];
  }

  /** A 401/403 (the key) or 404 (the URL or model) is the configuration's fault: say what to check. */
  #configProblem(err: unknown): ConfigError | undefined {
    if (err instanceof NotFoundHttpError) {
      return new ConfigError(
        `embeddings server ${this.#url} answered 404 for model "${this.model}": check pipelines.rakuten.embeddings.base_url and model`,
        { cause: err },
      );
    }
    if (err instanceof ClientHttpError && (err.status === 401 || err.status === 403)) {
      const key = this.#keySet
        ? `the API key in $${this.#keyEnv}`
        : `no API key ($${this.#keyEnv} is not set)`;
      return new ConfigError(`embeddings server ${this.#url} refused ${key} (HTTP ${err.status})`, {
        cause: err,
      });
    }
    return undefined;
  }

  #bad(response: HttpResponse, issues: string): BadPayloadError {
    return new BadPayloadError({
      method: "POST",
      url: this.#url,
      status: response.status,
      attempts: response.attempts,
      kind: "schema",
      bodyText: response.bodyText,
      issues,
    });
  }
}
