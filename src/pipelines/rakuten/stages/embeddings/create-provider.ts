import type { Logger } from "tidemark";
import type { HttpRequestEvent } from "tidemark/kit";
import { LocalLexicalProvider } from "./local-provider.ts";
import { OpenAiCompatibleProvider } from "./openai-compatible-provider.ts";
import type { EmbeddingProvider, EmbeddingsConfig } from "./provider.ts";

/** The provider the settings name; a ConfigError (exit 2) when openai-compatible lacks its URL or model. */
export function createEmbeddingProvider(
  config: EmbeddingsConfig,
  environ: NodeJS.ProcessEnv,
  logger: Logger,
  /** Told of each request to the embeddings API (the process's HTTP metrics). */
  onRequest?: (event: HttpRequestEvent) => void,
): EmbeddingProvider {
  return config.provider === "local"
    ? new LocalLexicalProvider(config)
    : new OpenAiCompatibleProvider(config, environ, logger, onRequest);
}
