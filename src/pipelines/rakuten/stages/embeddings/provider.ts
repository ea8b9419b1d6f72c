/** What the embedding job needs of a provider, and the settings that choose one. */
import type { RakutenEmbeddingSettings } from "../../settings.ts";

/** `pipelines.rakuten.embeddings` as resolved, plus the HTTP knobs of the remote provider. */
export type EmbeddingsConfig = RakutenEmbeddingSettings & {
  /** Per-request timeout of the openai-compatible provider (default 60 s). */
  timeoutMs?: number;
  /** Attempts per request, the first included; 429 and 5xx are retried (default 4). */
  maxAttempts?: number;
};

/** Turns texts into vectors; one vector per text, in order, all of one length. */
export interface EmbeddingProvider {
  /** Stored in `item_embedding.model`: items embedded by another model are embedded again. */
  readonly model: string;
  /** `lexical` (shared character sequences) or `semantic` (a language model's vectors). */
  readonly kind: "lexical" | "semantic";
  /** Vector length when known before asking (local); a change re-embeds every item. */
  readonly dimensions: number | undefined;
  readonly batchSize: number;
  embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]>;
}
