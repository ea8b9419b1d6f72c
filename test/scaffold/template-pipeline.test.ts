// The pipeline template as a pipeline: `tidemark new pipeline` copies these very files (only the
// name changes), so its own tests run here against this checkout's public entries.
import "../../templates/pipeline/test/conformance.test.ts";
import "../../templates/pipeline/test/sync.test.ts";
