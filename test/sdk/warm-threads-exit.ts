// Run by warm-threads.test.ts in a child process: warms two threads, never takes them, and
// ends its work. The process must exit on its own (the test fails on its timeout otherwise).
import { WarmThreads } from "tidemark/kit";

const threads = new WarmThreads(
  new URL("../fixtures/threads/any.ts", import.meta.url).href,
  "echo-worker",
  {},
).warm(2);
console.log(`warm ${threads.idle}`);
