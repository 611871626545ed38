import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createGateway } from '@agentport/gateway';
import config from '../agentport.config.ts';
import { countWords, wordCounter } from '../src/agent.ts';

test('the tool counts words and characters', async () => {
  assert.deepEqual(await countWords.execute({ text: 'hello  agents' }), {
    words: 2,
    characters: 13,
  });
});

test('the agent answers with the counts', async () => {
  assert.equal(await wordCounter.invoke('one'), '1 word, 3 characters');
  assert.equal(await wordCounter.invoke('hello agents'), '2 words, 12 characters');
});

test('the gateway serves the configured agent over REST and A2A', async () => {
  const gateway = createGateway({
    agents: config.agents ?? [],
    defaultAgent: config.defaultAgent ?? wordCounter.name,
    publicUrl: 'http://127.0.0.1',
  });
  try {
    const response = await gateway.app.request('/agents/word-counter/invoke', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ input: 'the quick brown fox' }),
    });
    assert.equal(response.status, 200);
    const answer = (await response.json()) as { result: string };
    assert.equal(answer.result, '4 words, 19 characters');

    const card = await gateway.app.request('/.well-known/agent.json');
    assert.equal(((await card.json()) as { name: string }).name, 'word-counter');
  } finally {
    await gateway.shutdown();
  }
});
