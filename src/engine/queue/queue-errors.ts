/**
 * Thrown by a handler for a message that can never succeed (bad payload, deleted job):
 * the message is dead-lettered at once instead of being retried.
 */
export class PermanentQueueError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "PermanentQueueError";
  }
}

/** The reason a handler's signal aborts when its worker stops before it finished. */
export class QueueStoppedError extends Error {
  constructor(message = "queue worker stopped; message released") {
    super(message);
    this.name = "QueueStoppedError";
  }
}

/** The reason a handler's signal aborts when another worker may now hold its message. */
export class VisibilityLostError extends Error {
  constructor(id: string) {
    super(`message ${id} is no longer held by this worker (visibility timeout expired)`);
    this.name = "VisibilityLostError";
  }
}
