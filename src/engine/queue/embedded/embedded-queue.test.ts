import { describeEachDialect } from "../../../testing/dialects.ts";
import { describeQueueConformance } from "../../../testing/queue/queue-conformance.ts";

describeEachDialect("embedded queue", (h) => {
  describeQueueConformance(
    "embedded",
    async () => ({ spec: { engine: "embedded", database: await h.freshTarget() } }),
    {
      visibilitySeconds: 1,
      retryDelaySeconds: 0.3,
      expirySlackMs: 1_500,
    },
  );
});
