import { lexicalEmbedding } from "./lexical-embedding.ts";
import type { EmbeddingProvider, EmbeddingsConfig } from "./provider.ts";

/** The built-in `local` provider: lexical character n-gram vectors, computed in process. */
export class LocalLexicalProvider implements EmbeddingProvider {
  readonly kind = "lexical" as const;
  readonly model: string;
  readonly dimensions: number;
  readonly batchSize: number;

  constructor(config: Pick<EmbeddingsConfig, "model" | "dimensions" | "batchSize">) {
    this.model = config.model;
    this.dimensions = config.dimensions;
    this.batchSize = config.batchSize;
  }

  /** Vectors of `texts` (no I/O; the signal is only checked). */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    signal?.throwIfAborted();
    return texts.map((t) => lexicalEmbedding(t, this.dimensions));
  }
}
