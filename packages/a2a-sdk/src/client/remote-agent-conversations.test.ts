import type { AgentCard } from '@a2a-js/sdk';
import { type Agent, createTaskRunner, InputRequiredError, textOf } from '@agentport/core';
import { createAssistantAgent, createBookingAgent } from '@agentport/core/agents';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Listening } from '../test-support/listen.ts';
import { type ClientFlavour, FLAVOURS } from '../test-support/sdk-client.ts';
import { type ServedAgent, serveAgent, serveLegacyCard } from '../test-support/servers.ts';
import { createRemoteSdkAgent } from './remote-agent.ts';

let booking: ServedAgent;
let assistant: ServedAgent;
const legacyCards: Listening[] = [];

beforeAll(async () => {
  [booking, assistant] = await Promise.all([
    serveAgent(createBookingAgent()),
    serveAgent(createAssistantAgent()),
  ]);
});

afterAll(async () => {
  await Promise.all([
    booking?.close(),
    assistant?.close(),
    ...legacyCards.map((card) => card.close()),
  ]);
});

/** A remote agent over one binding and version (v0.3 through a card offering only that). */
async function remoteOver(
  served: ServedAgent,
  { binding, version }: ClientFlavour,
): Promise<Agent> {
  if (version === '1.0') {
    return createRemoteSdkAgent({ url: served.baseUrl, preferredTransport: binding });
  }
  const card: AgentCard = served.server.card;
  const cardServer = await serveLegacyCard(card, binding);
  legacyCards.push(cardServer);
  return createRemoteSdkAgent({ url: cardServer.cardUrl });
}

describe.each(FLAVOURS)(
  'a remote agent in a conversation over $binding (A2A $version)',
  (flavour) => {
    it('pauses its local task when the remote one asks, and answers the same remote task on resume', async () => {
      const runner = createTaskRunner({ agent: await remoteOver(booking, flavour) });
      const first = await runner.submitAndWait('a table');
      expect(first.status).toBe('input-required');
      expect(textOf(first.statusMessage?.parts ?? [])).toBe('For how many people?');
      const second = await runner.resumeAndWait(first.id, '4');
      expect(textOf(second.statusMessage?.parts ?? [])).toBe('What time? (HH:MM)');
      const done = await runner.resumeAndWait(first.id, '19:30');
      expect([done.status, done.output]).toEqual(['completed', 'Booked a table for 4 at 19:30.']);
      await runner.close();
    });

    it('rejects an invoke of a remote that asks with InputRequiredError, which its state answers', async () => {
      const remote = await remoteOver(booking, flavour);
      const asked = await remote.invoke('a table').catch((error: unknown) => error);
      expect(asked).toBeInstanceOf(InputRequiredError);
      const { event } = asked as InputRequiredError;
      expect(textOf(event.question)).toBe('For how many people?');
      const again = await remote.invoke('2', { resumeState: event.state }).catch((error) => error);
      expect(textOf((again as InputRequiredError).event.question)).toBe('What time? (HH:MM)');
      const done = await remote.invoke('10:00', {
        resumeState: (again as InputRequiredError).event.state,
      });
      expect(done).toBe('Booked a table for 2 at 10:00.');
    });

    it('sends every part of the message to the remote agent', async () => {
      const remote = await remoteOver(assistant, flavour);
      const message = {
        messageId: crypto.randomUUID(),
        role: 'user' as const,
        parts: [
          { kind: 'text' as const, text: 'describe the parts' },
          { kind: 'file' as const, mediaType: 'image/png', bytes: 'AQID' },
          { kind: 'data' as const, data: { a: 1 } },
        ],
      };
      const expected =
        'text text/plain 18 bytes\nfile image/png 3 bytes\ndata application/json 7 bytes';
      expect(await remote.invoke(message)).toBe(expected);
      let streamed = '';
      for await (const event of remote.stream(message)) {
        if (event.type === 'text-delta') streamed += event.delta;
      }
      expect(streamed).toBe(expected);
    });
  },
);
