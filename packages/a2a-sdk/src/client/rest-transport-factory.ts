import type {
  AgentCard,
  SendMessageRequest,
  StreamResponse,
  SubscribeToTaskRequest,
} from '@a2a-js/sdk';
import {
  type RequestOptions,
  RestTransportFactory,
  type Transport,
  type TransportFactory,
} from '@a2a-js/sdk/client';
import {
  LegacyRestTransport,
  type LegacyRestTransportOptions,
} from '@a2a-js/sdk/compat/v0_3/client';
import { isLegacyVersion } from '../card/legacy-agent-card.ts';
import { ArtifactAppendRecorder } from './artifact-append-recorder.ts';

/**
 * The SDK's v0.3 HTTP+JSON transport with the `append` flag of streamed artifact updates kept:
 * each stream runs on a transport of its own whose fetch records the flags off the wire (see
 * {@link ArtifactAppendRecorder}); every other call is the SDK's.
 */
export class AppendKeepingLegacyRestTransport extends LegacyRestTransport {
  readonly #options: LegacyRestTransportOptions;

  constructor(options: LegacyRestTransportOptions) {
    super(options);
    this.#options = options;
  }

  override sendMessageStream(
    params: SendMessageRequest,
    options?: RequestOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#recorded((transport) => transport.sendMessageStream(params, options));
  }

  override resubscribeTask(
    params: SubscribeToTaskRequest,
    options?: RequestOptions,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    return this.#recorded((transport) => transport.resubscribeTask(params, options));
  }

  /** Runs one stream on a transport of its own, with each event's `append` flag put back. */
  async *#recorded(
    open: (transport: LegacyRestTransport) => AsyncIterable<StreamResponse>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    const recorder = new ArtifactAppendRecorder();
    for await (const event of open(this.#recordedBy(recorder))) yield recorder.restore(event);
  }

  #recordedBy(recorder: ArtifactAppendRecorder): LegacyRestTransport {
    return new LegacyRestTransport({
      ...this.#options,
      fetchImpl: recorder.wrap(this.#options.fetchImpl),
    });
  }
}

/** Options of {@link AppendKeepingRestTransportFactory}: those of the SDK's factory. */
export interface AppendKeepingRestTransportFactoryOptions {
  fetchImpl?: typeof fetch;
  legacyCompat?: { enabled: boolean };
}

/**
 * The SDK's HTTP+JSON transport factory, except that for a v0.3 interface it makes an
 * {@link AppendKeepingLegacyRestTransport} instead of the SDK's lossy `LegacyRestTransport`.
 */
export class AppendKeepingRestTransportFactory implements TransportFactory {
  readonly #factory: RestTransportFactory;
  readonly #fetchImpl: typeof fetch | undefined;

  constructor(options: AppendKeepingRestTransportFactoryOptions = {}) {
    this.#factory = new RestTransportFactory(options);
    this.#fetchImpl = options.fetchImpl;
  }

  get protocolName(): string {
    return this.#factory.protocolName;
  }

  async create(url: string, agentCard: AgentCard): Promise<Transport> {
    const transport = await this.#factory.create(url, agentCard);
    if (!isLegacyVersion(transport.protocolVersion)) return transport;
    return new AppendKeepingLegacyRestTransport({
      endpoint: url,
      ...(this.#fetchImpl ? { fetchImpl: this.#fetchImpl } : {}),
    });
  }
}
