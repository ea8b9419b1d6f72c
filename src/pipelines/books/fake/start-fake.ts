import type { FakeOptions, RunningFake } from "tidemark";
import { startFakeServer } from "tidemark/kit";
import { GoogleBooksFake } from "./google-books-fake.ts";
import { startSmtpCapture } from "./smtp-capture.ts";

/** Requests per second the fake answers without complaint (it has no rate limit). */
const FAKE_REQUESTS_PER_SECOND = 100;

/**
 * `tidemark fake books`: the fake Google Books API and an SMTP capture, standalone. Every
 * query has a seeded result count; captured mails are reported on the console.
 */
export async function startBooksFake(options: FakeOptions): Promise<RunningFake> {
  const fake = new GoogleBooksFake();
  const api = await startFakeServer(fake.handle, { port: options.port, host: options.host });
  const smtp = await startSmtpCapture({
    onMail: (m) => options.print(`mail to ${m.to.join(", ")}: ${JSON.stringify(m.subject)}`),
  });
  return {
    env: {
      TIDEMARK_GOOGLE_BOOKS_URL: api.url,
      TIDEMARK_SMTP_HOST: smtp.host,
      TIDEMARK_SMTP_PORT: String(smtp.port),
      // The fake's own rate: runs against it are not paced like the real API.
      TIDEMARK_GOOGLE_BOOKS_REQUESTS_PER_SECOND: String(FAKE_REQUESTS_PER_SECOND),
    },
    hints: [
      "tidemark job describe books.run        # params and a ready example: save it as params.yaml",
      "tidemark job add try-books --type books.run --params-file params.yaml && tidemark run try-books",
    ],
    async close() {
      await smtp.close();
      await api.close();
    },
  };
}
