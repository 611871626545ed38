import { ClientFactory } from '@a2a-js/sdk/client';
import { randomUUID } from 'node:crypto';
const client = await new ClientFactory().createFromUrl('http://127.0.0.1:18183/a2a/echo/');
for (let round = 0; round < 3; round++) {
  const rs = await Promise.allSettled(Array.from({ length: 200 }, (_, i) => client.sendMessage({ message: { messageId: randomUUID(), role: 1, parts: [{ content: { $case: 'text', value: 'sdk-' + round + '-' + i } }] } })));
  let ok = 0; const bad = [];
  rs.forEach((r, i) => { const v = r.value; const out = v?.artifacts?.[0]?.parts?.[0]?.content?.value; if (r.status === 'fulfilled' && v.status?.state === 3 && out === 'sdk-' + round + '-' + i) ok++; else bad.push(r.reason?.message ?? JSON.stringify(v).slice(0, 200)); });
  console.log('round', round, 'ok', ok, '/200', bad.slice(0, 3));
}
// also the REST transport
const card = await (await fetch('http://127.0.0.1:18183/a2a/echo/.well-known/agent-card.json')).json();
console.log('card interfaces', JSON.stringify(card.supportedInterfaces ?? card.additionalInterfaces).slice(0, 300));
