import { type IncomingMessage, OutgoingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
// Node's own, which test fake timers leave alone: bytes on a real socket need no clock.
import { setImmediate } from 'node:timers';

type WriteArgs = Parameters<ServerResponse['write']>;
type EndArgs = Parameters<ServerResponse['end']>;

/** Node's own `writableEnded`, which a held `end` answers for until it is made. */
const nodeWritableEnded = Object.getOwnPropertyDescriptor(
  OutgoingMessage.prototype,
  'writableEnded',
)?.get as (this: OutgoingMessage) => boolean;

/**
 * A `ServerResponse` whose bytes leave at the end of the event loop's turn, together with those of
 * every other response written to in that turn: its writes are corked until then, and its `end`
 * is made then (Node's `end` sends at once whatever is corked). Under load a client gets its
 * answers in bursts and is woken once per burst rather than once per answer or stream chunk: on
 * a VM, waking an idle CPU is an exit to the host paid inside the server's socket write
 * (docs/decisions/0006).
 *
 * A response's bytes and their order are unchanged; a lone answer or stream event waits for one
 * `setImmediate` (~10-15 µs here). Once `end` is called, `writableEnded` is true, as Node's is;
 * `finished` and `writableFinished` turn true when the bytes are sent. A `write` or another `end`
 * after `end` sends the held end at once, and Node answers them as it does (an `error` event);
 * so does a `destroy`. Writes past the socket's high-water mark in one turn go at once; an `end`
 * Node refuses cuts the connection at the end of the turn.
 * `listen` serves with it; a server of your own gets it from `createServer`'s `ServerResponse`
 * option.
 *
 * @example
 * const server = createServer({ ServerResponse: BatchingServerResponse }, listener);
 */
export class BatchingServerResponse<
  Request extends IncomingMessage = IncomingMessage,
> extends ServerResponse<Request> {
  /** The responses written to in this turn, corked until its end. */
  static #held: BatchingServerResponse[] = [];

  static #releaseHeld(): void {
    const responses = BatchingServerResponse.#held;
    BatchingServerResponse.#held = [];
    for (const response of responses) response.#release();
  }

  static {
    Object.defineProperty(BatchingServerResponse.prototype, 'writableEnded', {
      configurable: true,
      get(this: BatchingServerResponse) {
        return this.#end !== undefined || nodeWritableEnded.call(this);
      },
    });
  }

  /** The socket its writes corked until the end of the turn, if they did. */
  #corked: Socket | undefined;
  /** Whether it is in the turn's list. */
  #queued = false;
  /** The arguments of an `end` held until the end of the turn. */
  #end: EndArgs | undefined;

  override write(...args: unknown[]): boolean {
    // A write after a held end: the end is made at once, and Node answers the write as one
    // after the end (an `error` event).
    if (this.#end !== undefined) this.#release();
    else if (this.#corked === undefined) {
      // Without a socket yet (a pipelined response), Node keeps the bytes until it has one.
      const { socket } = this;
      if (socket !== null) {
        // The socket, not the response: a corked response keeps its chunks apart and writes
        // them after the last chunk when it ends.
        socket.cork();
        this.#corked = socket;
        this.#queue();
      }
    }
    const written = super.write(...(args as WriteArgs));
    // A turn's writes past the socket's high-water mark go at once: batching gains nothing on
    // them, and bytes held here would count as a backlog the reader has not taken (the SSE
    // writer's `slow_reader` check reads `writableLength`).
    const corked = this.#corked;
    if (corked !== undefined && corked.writableLength >= corked.writableHighWaterMark) {
      this.#corked = undefined;
      corked.uncork();
    }
    return written;
  }

  override destroy(error?: Error): this {
    // A held end is made first, as it would have been written before (@hono/node-server ends an
    // answer with its error text and destroys it at once).
    if (this.#end !== undefined) this.#release();
    return super.destroy(error);
  }

  override end(...args: unknown[]): this {
    // An end after a held end: the same as a write after one.
    if (this.#end !== undefined) this.#release();
    if (this.destroyed || this.finished || this.socket === null) {
      return super.end(...(args as EndArgs));
    }
    this.#end = args as EndArgs;
    this.#queue();
    return this;
  }

  #queue(): void {
    if (this.#queued) return;
    this.#queued = true;
    const held = BatchingServerResponse.#held;
    if (held.length === 0) setImmediate(BatchingServerResponse.#releaseHeld);
    held.push(this);
  }

  /** Sends what the turn held back: the held `end` (which uncorks the socket), or the writes. */
  #release(): void {
    if (!this.#queued) return;
    this.#queued = false;
    const corked = this.#corked;
    this.#corked = undefined;
    const end = this.#end;
    this.#end = undefined;
    if (end === undefined || this.destroyed) {
      // The caller left meanwhile (for a held end): Node would drop the bytes, after building an
      // error for them.
      corked?.uncork();
      return;
    }
    try {
      super.end(...end);
    } catch {
      // An end Node refuses (a chunk of another type): no answer, rather than a crash here, away
      // from its caller.
      this.destroy();
    }
  }
}
